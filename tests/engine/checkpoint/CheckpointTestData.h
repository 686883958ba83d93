// Data shared by the checkpoint tests: a state with every dtype, and the Python side of the
// interoperability check.
#pragma once

#include <torch/torch.h>

#include "engine/checkpoint/Checkpoint.h"

namespace tbench::testdata {

/// A state with one tensor of every dtype safetensors knows, plus a scalar, an empty tensor
/// and a non-contiguous one.
inline TrainingState allDtypesState() {
  torch::manual_seed(3);
  TrainingState s;
  auto f = torch::randn({3, 4});
  s.model = {{"f64", torch::randn({2, 3}, torch::kFloat64)},
             {"f32.transposed", f.t()},
             {"f16", torch::randn({5}).to(torch::kFloat16)},
             {"bf16", torch::randn({2, 2}).to(torch::kBFloat16)},
             {"i64", torch::arange(-3, 4, torch::kInt64)},
             {"i32", torch::tensor({-70000, 1, 70000}, torch::kInt32)},
             {"i16", torch::tensor({-300, 2}, torch::kInt16)},
             {"i8", torch::tensor({-5, 6, 7}, torch::kInt8)},
             {"u8", torch::tensor({0, 200, 255}, torch::kUInt8)},
             {"bool", torch::tensor({true, false, true})},
             {"scalar", torch::tensor(2.5)},
             {"empty", torch::zeros({0, 3})}};
  s.optimizer = torch::empty({0}, torch::kUInt8);
  s.rngState = torch::empty({0}, torch::kUInt8);
  s.globalStep = 42;
  s.epochNum = 7;
  return s;
}

// Run by /usr/bin/python3 with the temporary directory as argv[1]. Everything it checks it
// prints, one fact per line, for the C++ side to compare with its own values.
inline const char* kPythonScript = R"PY(
import hashlib, json, struct, sys
import torch
d = sys.argv[1]

def sha(t):
    t = t.detach().contiguous().flatten()
    return hashlib.sha256(t.view(torch.uint8).numpy().tobytes() if t.numel() else b"").hexdigest()

# weights_only=True: what torch.load(path) means since PyTorch 2.6 (Note [Plain pickles]).
ck = torch.load(d + "/model-3.pt", weights_only=True)
print("TYPE", type(ck).__name__)
print("KEYS", " ".join(sorted(ck.keys())))
print("META", ck["format"], ck["global_step"], ck["epoch_num"], ck["optimizer_type"],
      json.dumps(ck["project"]), ck["optimizer"].dtype, ck["rng_state"].dtype,
      ck["rng_state"].numel())
for name, t in ck["model"].items():
    print("T", name, list(t.shape), repr(t.double().sum().item()), sha(t))

pt = torch.load(d + "/weights.pt", weights_only=True)
print("PTTYPE", type(pt).__name__, len(pt))
for name, t in pt.items():
    print("PT", name, int(torch.equal(t, ck["model"][name])), sha(t))

dtypes = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16,
          "BF16": torch.bfloat16, "I64": torch.int64, "I32": torch.int32, "I16": torch.int16,
          "I8": torch.int8, "U8": torch.uint8, "BOOL": torch.bool}
for label, path, ref in [("ST", "/weights.safetensors", ck["model"]),
                         ("SD", "/dtypes.safetensors", torch.load(d + "/dtypes.pt", weights_only=True)["model"])]:
    raw = open(d + path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    buf = raw[8 + n:]
    meta = header.pop("__metadata__")
    print(label + "META", json.dumps(meta, sort_keys=True))
    for name, info in header.items():
        b, e = info["data_offsets"]
        t = torch.frombuffer(bytearray(buf[b:e]), dtype=dtypes[info["dtype"]]) if e > b else \
            torch.empty(0, dtype=dtypes[info["dtype"]])
        t = t.reshape(info["shape"])
        print(label, name, info["dtype"], info["shape"], int(torch.equal(t, ref[name])), sha(t))

torch.save(torch.arange(5), d + "/tensor.pt")
torch.save({"format": "towerbench-checkpoint-1", "global_step": 1}, d + "/nomodel.pt")
torch.save({"a": torch.ones(2)}, d + "/plaindict.pt")
print("HYPER", json.dumps({k: v.item() for k, v in ck["hyper_params"].items()}, sort_keys=True),
      ck["epoch_step"])
print("DONE")
)PY";

}  // namespace tbench::testdata
