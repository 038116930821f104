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
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import grpc
import numpy as np
import tritonclient.grpc as grpcclient
from tritonclient.grpc import service_pb2, service_pb2_grpc
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
        with open(ports) as f:
            grpc_port = f.read().split()[0]
        cls.client = grpcclient.InferenceServerClient(url=f"127.0.0.1:{grpc_port}")
        cls.channel = grpc.insecure_channel(f"127.0.0.1:{grpc_port}")

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        cls.proc.send_signal(signal.SIGTERM)
        code = cls.proc.wait(timeout=60)
        cls.log.close()
        assert code == 0, f"server exited with {code}; its log: {cls.dir}"
        shutil.rmtree(cls.dir, ignore_errors=True)

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

    def test_bounded_dynamic_model_checks_every_dimension_on_both_stacks(self):
        # dynamic_bound: Linear(16, 8) exported with a batch of 1..8.
        model = "dynamic_bound"
        meta = self.client.get_model_metadata(model)
        shape = list(meta.inputs[0].shape)
        print("dynamic_bound metadata:", shape)
        # The batch varies, the features are fixed (the ranges travel in an
        # extension field this client skips; kserve_test.cc reads them).
        self.assertEqual(shape, [-1, 16])
        self.assertEqual(list(meta.outputs[0].shape), [-1, 8])
        x = np.load(os.path.join("test", "fixtures", model, "input_0.npy"))  # [3, 16]
        expected = np.load(os.path.join("test", "fixtures", model, "expected_0.npy"))
        for arm in ("dynamic_bound.edgefleet", "dynamic_bound.pytorch-mobile"):
            inp = grpcclient.InferInput("input_0", list(x.shape), "FP32")
            inp.set_data_from_numpy(x)
            out = self.client.infer(model, [inp], parameters={"arm": arm}).as_numpy("output_0")
            np.testing.assert_allclose(out, expected, rtol=1e-3, atol=1e-4)
            for bad in ([4, 5], [9, 16], [4, 16, 1]):
                inp = grpcclient.InferInput("input_0", bad, "FP32")
                inp.set_data_from_numpy(np.zeros(bad, np.float32))
                with self.assertRaises(InferenceServerException) as e:
                    self.client.infer(model, [inp], parameters={"arm": arm})
                print(f"{arm} {bad}:", e.exception.status(), e.exception.message())
                self.assertIn("INVALID_ARGUMENT", e.exception.status())
                self.assertEqual(e.exception.message(),
                                 f"input_0: expected FP32[1..8,16], got FP32[{','.join(map(str, bad))}]")

    def test_no_internal_detail_in_any_error(self):
        # Malformed requests of many kinds; none may answer with a backtrace,
        # a library path or an address, and every message is one line.
        # Hand-made requests through tritonclient's own generated stubs, so
        # that shapes, datatypes and byte counts can disagree.
        stub = service_pb2_grpc.GRPCInferenceServiceStub(self.channel)
        cases = []
        for name, shape, dtype, nbytes in (("input_0", [4, 5], "FP32", 80),
                                           ("input_0", [4, 5], "FP32", 64),
                                           ("input_0", [0, 16], "FP32", 0),
                                           ("input_0", [2, 16], "INT64", 256),
                                           ("input_0", [2, 16], "FP16", 64),
                                           ("input_0", [1 << 20, 16], "FP32", 64),
                                           ("input_0", [2, -16], "FP32", 64),
                                           ("input_0", [], "FP32", 4),
                                           ("x", [2, 16], "FP32", 128)):
            request = service_pb2.ModelInferRequest(model_name="dynamic_bound")
            request.inputs.add(name=name, datatype=dtype, shape=shape)
            request.raw_input_contents.append(b"\0" * nbytes)
            cases.append(request)
        for request in cases:
            for arm in ("dynamic_bound.edgefleet", "dynamic_bound.pytorch-mobile"):
                request.parameters["arm"].string_param = arm
                with self.assertRaises(grpc.RpcError) as e:
                    stub.ModelInfer(request, timeout=30)
                message = e.exception.details()
                self.assertEqual(e.exception.code(), grpc.StatusCode.INVALID_ARGUMENT, message)
                for leak in ("\n", "/usr/", "0x", "frame #", ".so", "Traceback", "Exception raised"):
                    self.assertNotIn(leak, message, message)
        print("last message:", message)
        self.assertTrue(self.client.is_server_live())

    def test_extensions_we_do_not_serve_say_so(self):
        for call, rpc in ((lambda: self.client.get_model_config(MODEL), "ModelConfig"),
                          (lambda: self.client.get_inference_statistics(MODEL), "ModelStatistics"),
                          (lambda: self.client.get_model_repository_index(), "RepositoryIndex")):
            with self.assertRaises(InferenceServerException) as e:
                call()
            print(rpc, "->", e.exception.status(), e.exception.message())
            self.assertIn("UNIMPLEMENTED", e.exception.status())
            self.assertIn(f"{rpc} is not implemented by edgefleet-server", e.exception.message())
        self.assertTrue(self.client.is_server_live())

    def test_one_input_model_says_so(self):
        inp = grpcclient.InferInput("x", [1, 3, 96, 96], "FP32")
        inp.set_data_from_numpy(np.zeros((1, 3, 96, 96), np.float32))
        with self.assertRaises(InferenceServerException) as e:
            self.client.infer(MODEL, [inp])
        self.assertIn("the model takes one input, input_0", e.exception.message())


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
