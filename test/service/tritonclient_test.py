#!/usr/bin/env python3
"""The Open Inference Protocol through the Python tritonclient gRPC client.

Usage: tritonclient_test.py <edgefleet-server> <calibration file>
(run from the repository root by ctest, with tools/.venv-client's python).
Starts the real server on loopback with ephemeral ports, then checks with an
unmodified tritonclient: liveness, readiness, server and model metadata,
inference on the embedded default model's fixture input on both stacks
(outputs equal the exporter's expected_0.npy), the emulated timing in the
response parameters, and errors for bad requests. Prints what it sees.
"""

import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import numpy as np
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException

SERVER, CALIBRATION = sys.argv[1], sys.argv[2]
MODEL = "mobilenet_v2_035"
FIXTURE = os.path.join("test", "fixtures", MODEL)


class TritonClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="edgefleet-triton-")
        ports = os.path.join(cls.dir, "ports")
        cls.log = open(os.path.join(cls.dir, "server.log"), "w+")
        cls.proc = subprocess.Popen(
            [SERVER, "--port=0", "--metrics_port=0", f"--port_file={ports}",
             "--model_repository=test/fixtures",
             "--device_classes=deploy/device_classes,test/service/testdata/device_classes",
             "--arms=test/service/testdata/arms.textproto", f"--calibration={CALIBRATION}"],
            stdout=cls.log, stderr=cls.log)
        deadline = time.time() + 180
        while not os.path.exists(ports):
            if cls.proc.poll() is not None or time.time() > deadline:
                cls.log.seek(0)
                raise RuntimeError("server did not start:\n" + cls.log.read())
            time.sleep(0.05)
        grpc_port = open(ports).read().split()[0]
        cls.client = grpcclient.InferenceServerClient(url=f"127.0.0.1:{grpc_port}")

    @classmethod
    def tearDownClass(cls):
        cls.proc.send_signal(signal.SIGTERM)
        code = cls.proc.wait(timeout=60)
        cls.log.close()
        assert code == 0, f"server exited with {code}"

    def test_health_and_metadata(self):
        self.assertTrue(self.client.is_server_live())
        self.assertTrue(self.client.is_server_ready())
        self.assertTrue(self.client.is_model_ready(MODEL))
        self.assertEqual(self.client.get_server_metadata().name, "edgefleet")
        meta = self.client.get_model_metadata(MODEL)
        print("model metadata:", meta.inputs[0].name, meta.inputs[0].datatype,
              list(meta.inputs[0].shape), "->", list(meta.outputs[0].shape))
        self.assertEqual(meta.inputs[0].name, "input_0")
        self.assertEqual(list(meta.inputs[0].shape), [1, 3, 96, 96])

    def infer(self, arm=None, device_class="mid_android", data=None):
        x = np.load(os.path.join(FIXTURE, "input_0.npy")) if data is None else data
        inp = grpcclient.InferInput("input_0", list(x.shape), "FP32")
        inp.set_data_from_numpy(x)
        params = {"device_class": device_class}
        if arm:
            params["arm"] = arm
        return self.client.infer(MODEL, [inp], parameters=params,
                                 outputs=[grpcclient.InferRequestedOutput("output_0")])

    def test_infer_on_both_stacks_matches_the_exporter(self):
        expected = np.load(os.path.join(FIXTURE, "expected_0.npy"))
        for arm in ("mobilenet.edgefleet", "mobilenet.pytorch-mobile"):
            result = self.infer(arm=arm)
            out = result.as_numpy("output_0")
            params = result.get_response().parameters
            print(f"{arm}: device {params['device_inference_us'].int64_param} us,"
                  f" host {params['host_inference_us'].int64_param} us,"
                  f" max |diff| {np.abs(out - expected).max():.2e}")
            np.testing.assert_allclose(out, expected, rtol=1e-3, atol=1e-4)
            self.assertEqual(params["stack"].string_param, arm.split(".")[1])
            self.assertGreater(params["device_inference_us"].int64_param, 0)

    def test_bad_requests_name_the_problem(self):
        with self.assertRaises(InferenceServerException) as e:
            self.infer(data=np.zeros((1, 3, 32, 32), np.float32))
        print("wrong shape:", e.exception.status(), e.exception.message())
        self.assertIn("INVALID_ARGUMENT", e.exception.status())
        self.assertIn("expected FP32[1,3,96,96]", e.exception.message())
        with self.assertRaises(InferenceServerException) as e:
            self.infer(device_class="toaster")
        self.assertIn("NOT_FOUND", e.exception.status())
        with self.assertRaises(InferenceServerException) as e:
            self.client.get_model_metadata("../secrets")
        print("path-like name:", e.exception.status(), e.exception.message())
        self.assertIn("INVALID_ARGUMENT", e.exception.status())
        self.assertTrue(self.client.is_server_live())


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
