#!/usr/bin/python3
"""The real-model corpus of issue 11 (item 7): PyTorch models exported to ONNX with PyTorch's outputs.

Exports, from Debian's python3-torch and python3-torchvision, every torchvision classification and
segmentation model (torchvision.models.list_models(module=...)) at 224x224, batch 1, plus PyTorch's
nn.TransformerEncoder, into a cache folder, one sub-folder per model:

    CACHE/NAME/model.onnx      (and model.onnx.data side files when over 2 GB: torch writes them)
    CACHE/NAME/input_0.pb      the fixed input, an ONNX TensorProto
    CACHE/NAME/output_K.pb     PyTorch's outputs for it, computed in float64 (see below), ONNX TensorProtos
    CACHE/NAME/meta.json       torch/torchvision versions, opset, shapes, parameters, export seconds,
                               and how far PyTorch's own float32 outputs are from the float64 ones

Weights are random (torchvision's own initialisation under torch.manual_seed(0); no pretrained
downloads); BatchNorm running statistics come from one training-mode pass over two random images
(calibrate_batchnorm). The input is torch.randn under torch.manual_seed(1). Models are in eval mode; a
segmentation model's dict output becomes the outputs "out" (and "aux" when the model has it).

The reference outputs are the float64 truth: the same model (same weights, same BatchNorm statistics)
converted with model.double() and run on the same input in float64. PyTorch's float32 outputs are not
the truth either: on the deep ResNets they are 8.6e-5 (ResNet-101) and 9.1e-5 (FCN-ResNet50) relative
L2 away from float64, and a float32 implementation as accurate as PyTorch's differs from PyTorch's
float32 outputs by up to twice that (Tessera's reference backend: 1.26e-4 and 1.31e-4 from PyTorch's
float32, 9.6e-5 and 9.9e-5 from float64). Against float64, "within 1e-4 of PyTorch" measures the
implementation's own error. meta.json keeps PyTorch float32's distance from float64 per output
("torch_f32_rel_l2"); a model whose float64 run fails keeps its float32 outputs ("reference": "float32").
The .onnx files are never committed: the cache defaults to $TESSERA_TORCH_CORPUS, else
$XDG_CACHE_HOME/tessera/torch-corpus, else ~/.cache/tessera/torch-corpus. A model already in the
cache with the same STAMP is not exported again.

tests/torchcorpus/models.txt lists the corpus (name, group, "ci" for the few smallest that CI runs);
the ctest label `torchcorpus` (tests/torchcorpus/tst_torchcorpus.cpp) imports each cached model,
schedules it with every registered scheduler, verifies and runs each plan on the reference backend
and compares with output_K.pb (relative L2 under 1e-4; where PyTorch's own float32 output misses 1e-4 —
ResNet-152, FCN-ResNet101, DeepLabV3-ResNet101 — under torch_f32_rel_l2, or twice it on a backend that
sums in float32: docs/torch-corpus.md). `check` fails when models.txt and
torchvision's registry disagree, so the corpus stays "every model".

Usage:
    tools/torch_corpus.py export [--ci | --all | NAME ...] [--cache DIR]   export (default: --ci)
    tools/torch_corpus.py check                                          models.txt == torchvision's list
    tools/torch_corpus.py schedule --cli build/app/tessera-cli RESULTS.jsonl [NAME ...]
                                          import + schedule (+ verify) only, every scheduler, through
                                          `tessera-cli schedule --json`: the quick check for models whose
                                          reference runs take too long
    tools/torch_corpus.py report RESULTS.jsonl [SCHED.jsonl] [--markdown FILE]  the per-model table (docs/torch-corpus.md)

Exit code 77 (ctest's skip) when torch or torchvision cannot be imported.
"""

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS_TXT = os.path.join(HERE, "..", "tests", "torchcorpus", "models.txt")
OPSET = 17  # the newest opset torch 1.13's exporter supports
IMAGE = 224
SKIP = 77

# The TransformerEncoder of the corpus: 2 post-LN layers, d_model 256, 4 heads, FFN 1024, 64 tokens.
ENCODER = dict(d_model=256, nhead=4, dim_feedforward=1024, num_layers=2, seq=64)


def cache_dir(arg):
    if arg:
        return arg
    if os.environ.get("TESSERA_TORCH_CORPUS"):
        return os.environ["TESSERA_TORCH_CORPUS"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tessera", "torch-corpus")


def read_list():
    """[(name, group, ci)] from tests/torchcorpus/models.txt."""
    rows = []
    with open(MODELS_TXT) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if line:
                rows.append((line[0], line[1], len(line) > 2 and line[2] == "ci"))
    return rows


# Bumped whenever what an export writes changes: a cached model with another stamp is exported again.
EXPORT_VERSION = "4"  # 3: float64 reference outputs; 4: zero-initialised heads given random weights


def stamp():
    return EXPORT_VERSION


# ONNX TensorProto files (float32, float64) are written by tools/onnx_wire.py, by hand: no python3-onnx
# needed.
sys.path.insert(0, HERE)
from onnx_wire import tensor_proto  # noqa: E402

# --- models ------------------------------------------------------------------------------------


def build(name, group):
    import torch
    import torchvision

    torch.manual_seed(0)
    if group == "transformer":
        layer = torch.nn.TransformerEncoderLayer(ENCODER["d_model"], ENCODER["nhead"], ENCODER["dim_feedforward"],
                                                 batch_first=True)
        model = torch.nn.TransformerEncoder(layer, ENCODER["num_layers"], enable_nested_tensor=False)
        shape = (1, ENCODER["seq"], ENCODER["d_model"])
        return model, shape, ["output"]
    if group == "segmentation":
        net = torchvision.models.get_model(name, weights=None, weights_backbone=None)

        class Outputs(torch.nn.Module):
            """The dict output as a tuple of tensors (ONNX graphs have named outputs, not dicts)."""

            def __init__(self, net):
                super().__init__()
                self.net = net

            def forward(self, x):
                d = self.net(x)
                return tuple(d[k] for k in sorted(d))

        names = ["aux", "out"] if getattr(net, "aux_classifier", None) is not None else ["out"]
        return Outputs(net), (1, 3, IMAGE, IMAGE), names
    net = torchvision.models.get_model(name, weights=None)
    return net, (1, 3, IMAGE, IMAGE), ["output"]


def randomize_zero_weights(model):
    """torchvision zero-initialises some layers (the ViTs' classification head, heads.head): with random
    weights elsewhere the model's output is then 0 for every input, and a comparison with it proves
    nothing. Every Linear or convolution weight that is all zeros gets N(0, 0.02^2) values instead,
    from its own seeded generator (the other weights stay torchvision's)."""
    import torch

    gen = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (torch.nn.Linear, torch.nn.Conv2d)) and not m.weight.any():
                m.weight.copy_(torch.randn(m.weight.shape, generator=gen) * 0.02)


def register_symbolics():
    """torch 1.13's exporter has no symbolic for aten::zero (Tensor.zero_), which swin_v2's attention
    applies to a slice of a copy of its qkv bias: registered here as zeros_like (the same value)."""
    import torch
    from torch.onnx import symbolic_opset9

    torch.onnx.register_custom_op_symbolic("aten::zero", lambda g, self: symbolic_opset9.zeros_like(g, self), 9)


def calibrate_batchnorm(model, shape):
    """BatchNorm running statistics from one training-mode pass over two random images (seed 2).

    Freshly initialised BatchNorm layers hold mean 0 and variance 1, so in eval mode a deep network's
    activations shrink or grow layer by layer: torchvision's GoogLeNet ends up returning its final bias
    alone (to the bit), EfficientNet values near 1e-14. With statistics taken from data every layer's
    output is normalised again, and the comparison with PyTorch covers the whole network."""
    import torch

    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    # Inception V3's auxiliary head runs in training mode only, and its 5x5 convolution needs the
    # 299x299 input Inception V3 was designed for: dropped, which leaves the eval-mode graph as it is.
    if getattr(model, "AuxLogits", None) is not None:
        model.AuxLogits = None
    for m in bns:
        m.reset_running_stats()
        m.momentum = None  # a cumulative average: after one batch, that batch's statistics
    model.train()
    torch.manual_seed(2)
    with torch.no_grad():
        model(torch.randn(2, *shape[1:]))
    for m in bns:
        m.momentum = 0.1


def rel_l2(got, want):
    """||got - want|| / ||want|| in float64 (the plain distance when want is all zeros)."""
    import numpy as np

    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    norm = float(np.linalg.norm(want))
    diff = float(np.linalg.norm(got - want))
    return diff / norm if norm > 0 else diff


def float64_outputs(model, x, grad, name):
    """The model's outputs for x computed in float64 (model.double(), after the float32 export), or
    None, with a message, when some layer has no float64 kernel."""
    import torch

    try:
        model.double()
        with torch.set_grad_enabled(grad):
            y = model(x.double())
    except Exception as e:  # keep the float32 outputs
        print(f"{name}: no float64 run ({type(e).__name__}: {e}); float32 outputs kept", file=sys.stderr)
        return None
    ys = list(y) if isinstance(y, (tuple, list)) else [y]
    return [t.detach().numpy() for t in ys]


def export_one(name, group, root, force):
    import torch

    folder = os.path.join(root, name)
    meta_path = os.path.join(folder, "meta.json")
    if not force and os.path.exists(meta_path):
        with open(meta_path) as f:
            if json.load(f).get("stamp") == stamp():
                print(f"{name}: cached", flush=True)
                return True
    os.makedirs(folder, exist_ok=True)
    t0 = time.time()
    model, shape, out_names = build(name, group)
    randomize_zero_weights(model)
    calibrate_batchnorm(model, shape)
    model.eval()
    torch.manual_seed(1)
    x = torch.randn(*shape)
    # nn.TransformerEncoderLayer and nn.MultiheadAttention (ViT's) take fused fast paths
    # (aten::_transformer_encoder_layer_fwd, aten::_native_multi_head_attention, which the exporter
    # cannot export) when autograd is off: models with either keep autograd on for the reference
    # output and the export, so both run the same ONNX-exportable layers.
    fused = (torch.nn.TransformerEncoderLayer, torch.nn.MultiheadAttention)
    grad = any(isinstance(m, fused) for m in model.modules())
    with torch.set_grad_enabled(grad):
        y = model(x)
    ys = list(y) if isinstance(y, (tuple, list)) else [y]
    tmp = os.path.join(folder, "model.onnx.tmp")
    for f in os.listdir(folder):  # drop old side files
        os.remove(os.path.join(folder, f))
    with torch.set_grad_enabled(grad):
        torch.onnx.export(model, (x,), tmp, opset_version=OPSET, input_names=["input"], output_names=out_names,
                          do_constant_folding=True)
    os.replace(tmp, os.path.join(folder, "model.onnx"))
    with open(os.path.join(folder, "input_0.pb"), "wb") as f:
        f.write(tensor_proto("input", x.numpy()))
    y32 = [t.detach().numpy() for t in ys]
    y64, reference = float64_outputs(model, x, grad, name), "float64"
    if y64 is None:
        y64, reference = y32, "float32"
    for k, (n, t) in enumerate(zip(out_names, y64)):
        with open(os.path.join(folder, f"output_{k}.pb"), "wb") as f:
            f.write(tensor_proto(n, t))
    import torchvision

    meta = {
        "name": name,
        "group": group,
        "stamp": stamp(),
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "opset": OPSET,
        "input": list(shape),
        "outputs": {n: list(t.shape) for n, t in zip(out_names, ys)},
        "parameters": sum(p.numel() for p in model.parameters()),
        "reference": reference,
        "torch_f32_rel_l2": {n: rel_l2(a, b) for n, a, b in zip(out_names, y32, y64)},
        "export_s": round(time.time() - t0, 2),
    }
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1)
    print(f"{name}: exported in {meta['export_s']} s", flush=True)
    return True


def registry():
    import torchvision

    m = torchvision.models
    names = {n: "classification" for n in m.list_models(module=m)}
    names.update({n: "segmentation" for n in m.list_models(module=m.segmentation)})
    return names


def check():
    listed = {n: g for n, g, _ in read_list() if g != "transformer"}
    tv = registry()
    missing = sorted(set(tv) - set(listed))
    extra = sorted(set(listed) - set(tv))
    wrong = sorted(n for n in set(tv) & set(listed) if tv[n] != listed[n])
    for what, names in (("missing from", missing), ("not in torchvision, but in", extra), ("wrong group in", wrong)):
        if names:
            print(f"{what} models.txt: {' '.join(names)}", file=sys.stderr)
    return not (missing or extra or wrong)


def cmd_export(a):
    try:
        import torch  # noqa: F401
        import torchvision  # noqa: F401
    except ImportError as e:
        print(f"skipped: python3-torch/python3-torchvision not importable ({e})")
        return SKIP
    if not check():
        return 1
    rows = read_list()
    if a.names:
        known = {n for n, _, _ in rows}
        unknown = [n for n in a.names if n not in known]
        if unknown:
            print(f"unknown model(s): {' '.join(unknown)} (see {MODELS_TXT})", file=sys.stderr)
            return 2
        rows = [r for r in rows if r[0] in a.names]
    elif not a.all:
        rows = [r for r in rows if r[2]]
    root = cache_dir(a.cache)
    register_symbolics()
    failed = []
    for name, group, _ in rows:
        try:
            export_one(name, group, root, a.force)
        except Exception as e:  # one model's failure must not stop the others
            print(f"{name}: export failed: {type(e).__name__}: {e}", file=sys.stderr)
            failed.append(name)
    print(f"{len(rows) - len(failed)} of {len(rows)} models in {root}")
    return 1 if failed else 0


def cmd_schedule(a):
    """tessera-cli inspect (import) then schedule --json with every scheduler, for every cached model."""
    import subprocess

    root = cache_dir(a.cache)
    algos = [line.split()[0] for line in subprocess.run([a.cli, "algorithms"], capture_output=True, text=True,
                                                        check=True).stdout.splitlines()
             if line and not line.startswith(" ")]
    names = a.names or [n for n, _, _ in read_list()]

    def append(r):
        with open(a.results, "a") as f:
            f.write(json.dumps(r) + "\n")

    for name in names:
        model = os.path.join(root, name, "model.onnx")
        if not os.path.exists(os.path.join(root, name, "meta.json")):
            continue
        t0 = time.time()
        p = subprocess.run([a.cli, "inspect", model, "--json"], capture_output=True, text=True)
        r = {"model": name, "import_ms": (time.time() - t0) * 1000, "import_via": "tessera-cli inspect"}
        if p.returncode != 0:
            r["error"] = "import: " + (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
            append(r)
            print(f"{name}: {r['error']}", flush=True)
            continue
        j = json.loads(p.stdout)
        r.update(nodes=j.get("nodes"), gflops=j.get("flops", 0) / 1e9)
        append(r)
        for algo in algos:
            t0 = time.time()
            p = subprocess.run([a.cli, "schedule", model, "--algo", algo, "--device", "host", "--json"],
                               capture_output=True, text=True)
            r = {"model": name, "scheduler": algo, "schedule_ms": (time.time() - t0) * 1000, "scheduled_only": 1}
            if p.returncode == 0:
                j = json.loads(p.stdout)
                r.update(ok=1, kernels=j.get("kernels"), search_ms=j.get("search_ms"))
            else:
                r.update(ok=0, error="schedule: " + (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1])
            append(r)
            print(f"{name} {algo}: {'ok' if r['ok'] else r['error']} ({r['schedule_ms'] / 1000:.1f} s)", flush=True)
    return 0


def cmd_report(a):
    """RESULTS.jsonl files (tst_torchcorpus's lines, then `schedule`'s) -> the per-model table.

    A cell is "pass" (scheduled, verified, run on the reference backend and within 1e-4 of PyTorch),
    "sched" (scheduled and verified by `schedule`; not run), "**fail**" or "–" (not tried), with the
    wall time of scheduling (including verification) in seconds. A full run wins over a schedule-only one.
    """
    models, scheds = {}, []
    for path in a.results:
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                m = models.setdefault(r["model"], {"runs": {}})
                full = "scheduled_only" not in r
                for k in ("import_ms", "nodes", "folded", "gflops"):
                    if k in r and (full or k not in m):
                        m[k] = r[k]
                if "scheduler" in r:
                    old = m["runs"].get(r["scheduler"])
                    if old is None or full or "scheduled_only" in old:
                        m["runs"][r["scheduler"]] = r
                    if r["scheduler"] not in scheds:
                        scheds.append(r["scheduler"])
                elif "error" in r:
                    m["error"] = r["error"]
    listed = [n for n, _, _ in read_list()]
    order = [n for n in listed if n in models] + sorted(set(models) - set(listed))
    lines = ["| model | import ms | nodes | GFLOP | " + " | ".join(scheds) + " | max rel L2 |",
             "|---|---:|---:|---:|" + "---|" * len(scheds) + "---:|"]
    failures, counts, raised = [], {"pass": 0, "sched": 0, "fail": 0}, {}
    for n in order:
        m = models[n]
        cells, worst = [], None
        for s in scheds:
            r = m["runs"].get(s)
            if r is None:
                cells.append("–")
            elif r.get("ok"):
                kind = "sched" if "scheduled_only" in r else "pass"
                counts[kind] += 1
                # * only where the raised bar was needed: the output is 1e-4 or more from float64
                star = "*" if "bar" in r and r.get("rel_l2", 0.0) >= 1e-4 else ""
                if star:
                    raised[n] = r["bar"]
                cells.append(f"{kind}{star} {r['schedule_ms'] / 1000:.1f}")
                if "rel_l2" in r:
                    worst = max(worst or 0.0, r["rel_l2"])
            else:
                counts["fail"] += 1
                cells.append("**fail**")
                failures.append((n, s, r.get("error") or
                                 (f"output {r['rel_l2']:.2e} from PyTorch's float64 (relative L2), over "
                                  f"{r.get('bar', 1e-4):.1e}" if "rel_l2" in r else "")))
        if "error" in m:
            failures.append((n, "import", m["error"]))
        nodes = m.get("nodes")
        lines.append(f"| {n} | {m['import_ms']:.0f} | {nodes if nodes is not None else '–'} | "
                     f"{m.get('gflops', 0):.1f} | " + " | ".join(cells) +
                     f" | {'–' if worst is None else f'{worst:.1e}'} |" if "import_ms" in m else
                     f"| {n} | – | – | – | " + " | ".join(cells) + " | – |")
    missing = [n for n in listed if n not in models]
    text = "\n".join(lines) + "\n"
    text += (f"\n{len(order)} models; model × scheduler: {counts['pass']} pass (run, rel L2 < 1e-4"
             f"{' or the bar marked *' if raised else ''}), "
             f"{counts['sched']} scheduled and verified only, {counts['fail']} fail.\n")
    if raised:
        text += ("\n\\* 1e-4 or more from float64, under the raised bar: PyTorch's own float32 output is further "
                 "than 1e-4 from its float64 one, and the bar is that distance for a backend that sums in "
                 "float64, twice it for one that sums in float32 (tst_torchcorpus allowedRelL2): " +
                 ", ".join(f"{n} {b:.1e}" for n, b in raised.items()) + ".\n")
    if missing:
        text += f"\nNot tried (not exported or not reached): {', '.join(missing)}.\n"
    if failures:
        text += "\n| model | scheduler | error |\n|---|---|---|\n"
        text += "".join(f"| {n} | {s} | {e.splitlines()[0][:300] if e else ''} |\n" for n, s, e in failures)
    if a.markdown:
        with open(a.markdown) as f:
            doc = f.read()
        begin, end = f"<!-- {a.marker} begin -->", f"<!-- {a.marker} end -->"
        i, j = doc.index(begin) + len(begin), doc.index(end)
        with open(a.markdown, "w") as f:
            f.write(doc[:i] + "\n" + text + doc[j:])
    else:
        sys.stdout.write(text)
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export")
    g = e.add_mutually_exclusive_group()
    g.add_argument("--ci", action="store_true", help="the models marked ci in models.txt (the default)")
    g.add_argument("--all", action="store_true", help="every model of models.txt")
    e.add_argument("names", nargs="*")
    e.add_argument("--cache")
    e.add_argument("--force", action="store_true", help="export again even when cached")
    sub.add_parser("check")
    sc = sub.add_parser("schedule")
    sc.add_argument("--cli", required=True)
    sc.add_argument("--cache")
    sc.add_argument("results")
    sc.add_argument("names", nargs="*")
    r = sub.add_parser("report")
    r.add_argument("results", nargs="+")
    r.add_argument("--markdown")
    r.add_argument("--marker", default="torchcorpus table",
                   help="the page's section between <!-- MARKER begin --> and <!-- MARKER end -->")
    a = p.parse_args()
    if a.cmd == "export":
        return cmd_export(a)
    if a.cmd == "check":
        try:
            return 0 if check() else 1
        except ImportError as ex:
            print(f"skipped: {ex}")
            return SKIP
    if a.cmd == "schedule":
        return cmd_schedule(a)
    return cmd_report(a)


if __name__ == "__main__":
    sys.exit(main())
