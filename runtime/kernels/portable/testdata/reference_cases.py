"""The case format of reference_<i>.json (make_reference.py): argument and
tensor encoding, the case list, and the seeded input generators the case
modules share."""

import math

import torch


CHANNELS_LAST = [0, 2, 3, 1]
cases = []


class Out:
    def __init__(self, k):
        self.k = k


class OutSpec:
    def __init__(self, dtype, sizes, dim_order=None):
        self.dtype, self.sizes, self.dim_order = dtype, list(sizes), dim_order


class Layout:
    """A tensor argument laid out with a non-default dim order."""

    def __init__(self, t, dim_order):
        self.t, self.dim_order = t, dim_order


class TensorList:
    def __init__(self, items, optional=False):
        self.items, self.optional = items, optional


class BoolList:
    def __init__(self, items):
        self.items = [bool(b) for b in items]


def dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def values(t):
    flat = t.detach().reshape(-1).tolist()
    if t.dtype.is_floating_point:
        return [("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf"))
                if not math.isfinite(v) else v for v in flat]
    return flat


def tensor_json(t, dim_order=None):
    out = {"dtype": dtype_name(t.dtype), "sizes": list(t.shape),
           "values": values(t)}
    if dim_order is not None:
        out["dim_order"] = dim_order
    return out


def arg_json(a):
    if isinstance(a, Out):
        return {"out": a.k}
    if isinstance(a, OutSpec):
        spec = {"dtype": dtype_name(a.dtype), "sizes": a.sizes, "values": []}
        if a.dim_order is not None:
            spec["dim_order"] = a.dim_order
        return {"out_spec": spec}
    if isinstance(a, Layout):
        return {"tensor": tensor_json(a.t, a.dim_order)}
    if isinstance(a, torch.Tensor):
        return {"tensor": tensor_json(a)}
    if isinstance(a, BoolList):
        return {"bool_list": a.items}
    if isinstance(a, TensorList):
        key = "optional_tensor_list" if a.optional else "tensor_list"
        return {key: [None if t is None else tensor_json(t) for t in a.items]}
    if a is None:
        return {"none": None}
    if isinstance(a, bool):
        return {"bool": a}
    if isinstance(a, int):
        return {"int": a}
    if isinstance(a, float):
        if not math.isfinite(a):
            return {"double": "nan" if math.isnan(a) else
                    ("inf" if a > 0 else "-inf")}
        return {"double": a}
    if isinstance(a, str):
        return {"string": a}
    if isinstance(a, (list, tuple)):
        return {"int_list": list(a)}
    raise TypeError(a)


def case(name, op, args, outs, rtol=1e-5, atol=1e-6, out_dim_orders=None):
    """outs: the tensors torch computed, in schema order."""
    if isinstance(outs, torch.Tensor):
        outs = [outs]
    orders = out_dim_orders or [None] * len(outs)
    cases.append({
        "name": name, "op": op if "::" in op else "aten::" + op,
        "args": [arg_json(a) for a in args],
        "outputs": [tensor_json(o, d) for o, d in zip(outs, orders)],
        "rtol": rtol, "atol": atol})


def inplace(name, op, args, arg, result, rtol=1e-5, atol=1e-6):
    """An in-place op whose argument `arg` must equal `result` afterwards."""
    case(name, op, args, result, rtol, atol)
    cases[-1]["inplace"] = arg


def functional(name, op, args, result, rtol=1e-5, atol=1e-6):
    """A functional op (no out argument): Out(0) in args stands for its
    return value, which the test passes as the return slot only."""
    case(name, op, args, result, rtol, atol)
    cases[-1]["functional"] = True


def error(name, op, args):
    cases.append({"name": name, "op": op if "::" in op else "aten::" + op,
                  "args": [arg_json(a) for a in args], "outputs": [],
                  "error": True})


def randn(*shape, dtype=torch.float32):
    return torch.randn(*shape, dtype=torch.float64).to(dtype)


def randint(lo, hi, *shape, dtype=torch.int64):
    return torch.randint(lo, hi, shape, dtype=dtype)
