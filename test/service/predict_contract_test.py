#!/usr/bin/env python3
"""The `edgefleet-server predict` contract (docs/service.md), on the committed fixture
models and a committed host profile (test/service/testdata/predict_host_profile.textproto,
no population prior), checked against values computed here by hand from that
profile: one calibration point scales every model by its summed host cost;
threads follow the class's topology and Amdahl fraction with the per-operator
overhead serial. Usage: predict_contract_test.py PATH/TO/edgefleet-server
(run from the repository root)."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

SERVER = None
PROFILE = "test/service/testdata/predict_host_profile.textproto"
MODELS = ["small_cnn", "mobilenet_v2_035", "zoo_kws_conv1d"]


def class_costs(path=PROFILE, stack="STACK_EDGEFLEET"):
    """{model: {class: host_us}} of `stack`'s entries in the profile textproto."""
    with open(path) as f:
        text = f.read()
    out = {}
    for block in re.findall(r"\nmodels \{\n(.*?)\n\}", text, re.S):
        if re.search(r"^  stack: (\w+)", block, re.M).group(1) != stack:
            continue
        model = re.search(r'^  model: "([^"]+)"', block, re.M).group(1)
        costs = {}
        for c in re.findall(r"classes \{(.*?)\}", block, re.S):
            cls = re.search(r"op_class: (\w+)", c).group(1)
            us = re.search(r"host_us: ([0-9.e+-]+)", c)
            costs[cls] = float(us.group(1)) if us else 0.0
        out[model] = costs
    return out


class PredictContractTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        # A copy: predict writes back models it had to measure.
        self.profile = os.path.join(self.tmp, "profile.textproto")
        shutil.copy(PROFILE, self.profile)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def predict(self, *extra, expect=0, may_measure=False):
        cmd = [SERVER, "predict", "--model_repository=test/fixtures",
               f"--host_profile={self.profile}", "--json", *extra]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, expect, p.stderr)
        if expect:
            return p.stderr
        if not may_measure:  # fixtures added later are measured, not in the profile
            self.assertNotIn("measuring", p.stderr, "the committed profile should cover them")
        return json.loads(p.stdout)

    def test_json_shape_and_order(self):
        out = self.predict("--device_class=mid_android", "--calibrate=small_cnn@1=2.0",
                           *[f"--model={m}" for m in MODELS])
        self.assertEqual(out["device_class"], "mid_android")
        self.assertEqual(out["threads"], 1)
        self.assertEqual([p["model"] for p in out["predictions"]], MODELS)
        for p in out["predictions"]:
            self.assertIsInstance(p["device_ms"], (int, float))
            self.assertGreater(p["device_ms"], 0)

    def test_one_point_scales_by_summed_host_cost(self):
        costs = class_costs()
        out = self.predict("--calibrate=mobilenet_v2_035@1=9.5",
                           *[f"--model={m}" for m in MODELS])
        got = {p["model"]: p["device_ms"] for p in out["predictions"]}
        ref = sum(costs["mobilenet_v2_035"].values())
        for m in MODELS:
            want = 9.5 * sum(costs[m].values()) / ref
            self.assertAlmostEqual(got[m] / want, 1.0, places=4, msg=m)

    def test_threads_follow_topology_with_serial_overhead(self):
        costs = class_costs()["mobilenet_v2_035"]
        out1 = self.predict("--calibrate=mobilenet_v2_035@1=20", "--model=mobilenet_v2_035")
        out4 = self.predict("--calibrate=mobilenet_v2_035@1=20", "--model=mobilenet_v2_035",
                            "--threads=4")
        # mid_android: 2 big + 6 LITTLE at 0.4, parallel_fraction 0.982: four
        # threads reach the LITTLE cores, capacity 4 x 0.4.
        speedup = 1 / ((1 - 0.982) + 0.982 / 1.6)
        overhead = costs["OP_CLASS_OVERHEAD"]
        total = sum(costs.values())
        scale = 20 / total
        want4 = scale * ((total - overhead) / speedup + overhead)
        self.assertAlmostEqual(out1["predictions"][0]["device_ms"], 20, places=3)
        self.assertAlmostEqual(out4["predictions"][0]["device_ms"] / want4, 1.0, places=4)
        # Without our runtime's measured scaling: the device model alone,
        # the same here (the profile's entries carry no two-thread speedup).
        off4 = self.predict("--calibrate=mobilenet_v2_035@1=20", "--model=mobilenet_v2_035",
                            "--threads=4", "--host_thread_scaling=off")
        self.assertAlmostEqual(off4["predictions"][0]["device_ms"] / want4, 1.0, places=4)

    def test_defaults_to_every_model_and_class_points(self):
        out = self.predict("--device_classes=test/service/testdata/predict_classes",
                           "--device_class=fixture_phone", may_measure=True)
        models = sorted(d for d in os.listdir("test/fixtures")
                        if os.path.exists(os.path.join("test/fixtures", d, "model.pte")))
        self.assertEqual(sorted(p["model"] for p in out["predictions"]), models)
        got = {p["model"]: p["device_ms"] for p in out["predictions"]}
        self.assertAlmostEqual(got["small_cnn"], 3.0, places=3)  # the class's own point

    def test_default_host_profile_is_beside_the_classes_and_read_only(self):
        # Without --host_profile, predict reads DIR/../device_model/
        # host_profile.textproto of --device_classes=DIR, as the server does,
        # and never writes it.
        classes = os.path.join(self.tmp, "classes")
        shutil.copytree("deploy/device_classes", classes)
        os.makedirs(os.path.join(self.tmp, "device_model"))
        default = os.path.join(self.tmp, "device_model", "host_profile.textproto")
        shutil.copy(PROFILE, default)
        models = [f"--model={m}" for m in MODELS]
        cmd = [SERVER, "predict", "--model_repository=test/fixtures",
               f"--device_classes={classes}", "--calibrate=mobilenet_v2_035@1=9.5", "--json"]
        p = subprocess.run(cmd + models, capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("measuring", p.stderr)
        named = self.predict(f"--device_classes={classes}", "--calibrate=mobilenet_v2_035@1=9.5",
                             *models)
        self.assertEqual(json.loads(p.stdout)["predictions"], named["predictions"])
        # A default profile that lacks the models: they are measured for this
        # call only, and the file stays as it was.
        with open(default, "w") as f:
            f.write("# an empty edgefleet.v1.HostProfile\n")
        p = subprocess.run(cmd + ["--model=small_cnn"], capture_output=True, text=True,
                           timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("measuring", p.stderr)
        with open(default) as f:
            self.assertEqual(f.read(), "# an empty edgefleet.v1.HostProfile\n")

    def test_fresh_clone_predicts_the_reference_models_from_an_empty_repository(self):
        # The committed profile carries the ten published reference models:
        # calibrated on three of them with no exported model at all (a fresh
        # clone before `make models`), predict answers for every one, without
        # measuring, and gives the calibration points back.
        empty = os.path.join(self.tmp, "empty_repository")
        os.makedirs(empty)
        points = {"mobilenet_v2": 27.81, "resnet18": 77.34, "efficientnet_b0": 43.65}
        cmd = [SERVER, "predict", f"--model_repository={empty}", "--json",
               *[f"--calibrate={m}@1={ms}" for m, ms in points.items()]]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("measuring", p.stderr)
        got = {x["model"]: x["device_ms"] for x in json.loads(p.stdout)["predictions"]}
        with open("deploy/device_model/host_profile.textproto") as f:
            profiled = set(re.findall(r'^  model: "([^"]+)"', f.read(), re.M))
        self.assertEqual(set(got), profiled)
        self.assertEqual(len(got), 10)
        for m, ms in points.items():
            self.assertLess(abs(got[m] / ms - 1), 0.1, m)
        # An empty repository and a stack the profile has nothing of: a clear error.
        p = subprocess.run(cmd + ["--stack=pytorch-mobile"], capture_output=True, text=True,
                           timeout=300)
        self.assertEqual(p.returncode, 2)
        self.assertIn("nothing to predict", p.stderr)

    def test_bad_requests_fail_clearly(self):
        err = self.predict("--calibrate=not_a_model@1=3", expect=2)
        self.assertIn("not in the repository", err)
        err = self.predict("--calibrate=small_cnn@1", expect=2)
        self.assertIn("MODEL@THREADS=MS", err)
        err = self.predict("--calibrate=small_cnn@1=-3", expect=2)
        self.assertIn("MODEL@THREADS=MS", err)
        err = self.predict("--calibrate=small_cnn@4=3", expect=1)
        self.assertIn("single-thread", err)
        err = self.predict("--calibrate=small_cnn@1=3", "--calibrate=small_cnn@1=9", expect=1)
        self.assertIn("contradictory", err)
        err = self.predict("--model=nope", "--calibrate=small_cnn@1=3", expect=2)
        self.assertIn("not in the repository", err)
        err = self.predict("--threads=0", "--calibrate=small_cnn@1=3", expect=2)
        self.assertIn("--threads", err)
        err = self.predict("--stack=tflite", "--calibrate=small_cnn@1=3", expect=2)
        self.assertIn("--stack must be edgefleet or pytorch-mobile", err)
        err = self.predict("--host_thread_scaling=maybe", "--calibrate=small_cnn@1=3", expect=2)
        self.assertIn("--host_thread_scaling must be on or off", err)
        err = self.predict("--stack=pytorch-mobile", "--calibrate=small_cnn@1=3",
                           "--model=zoo_kws_conv1d", expect=1)
        self.assertIn("zoo_kws_conv1d", err)  # the fixture has no .ptl

    def test_old_stack_gets_its_own_factor(self):
        # The class is fitted to the edgefleet program (one point: one scale
        # per host us); the old stack's prediction is that scale times the
        # .ptl's own per-class host costs, measured now (lite interpreter
        # operator hooks) and written back to the profile.
        out = self.predict("--stack=pytorch-mobile", "--calibrate=small_cnn@1=3",
                           "--model=small_cnn", "--model=mobilenet_v2_035", may_measure=True)
        self.assertEqual(out["stack"], "pytorch-mobile")
        new = class_costs(self.profile)
        old = class_costs(self.profile, "STACK_PYTORCH_MOBILE")
        self.assertEqual(sorted(old), ["mobilenet_v2_035", "small_cnn"])
        scale = 3.0 / sum(new["small_cnn"].values())
        got = {p["model"]: p["device_ms"] for p in out["predictions"]}
        for m in old:
            self.assertGreater(sum(old[m].values()), 0, m)
            want = scale * sum(old[m].values())
            self.assertAlmostEqual(got[m] / want, 1.0, places=4, msg=m)
        # Measured once: the second call reads the profile.
        again = self.predict("--stack=pytorch-mobile", "--calibrate=small_cnn@1=3",
                             "--model=small_cnn", "--model=mobilenet_v2_035")
        self.assertEqual(again["predictions"], out["predictions"])


if __name__ == "__main__":
    SERVER = os.path.abspath(sys.argv.pop(1))
    unittest.main()
