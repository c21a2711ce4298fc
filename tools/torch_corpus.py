#!/usr/bin/python3
"""The real-model corpus of issue 11 (item 7): PyTorch models exported to ONNX with PyTorch's outputs.

Exports, from Debian's python3-torch and python3-torchvision, every torchvision classification and
segmentation model (torchvision.models.list_models(module=...)) at 224x224, batch 1, plus PyTorch's
nn.TransformerEncoder, into a cache folder, one sub-folder per model:

    CACHE/NAME/model.onnx      (and model.onnx.data side files when over 2 GB: torch writes them)
    CACHE/NAME/input_0.pb      the fixed input, an ONNX TensorProto
    CACHE/NAME/output_K.pb     PyTorch's outputs for it (float32), ONNX TensorProtos
    CACHE/NAME/meta.json       torch/torchvision versions, opset, shapes, parameters, export seconds

Weights are random (torchvision's own initialisation under torch.manual_seed(0); no pretrained
downloads). The input is torch.randn under torch.manual_seed(1). Models are in eval mode; a
segmentation model's dict output becomes the outputs "out" (and "aux" when the model has it).
The .onnx files are never committed: the cache defaults to $TESSERA_TORCH_CORPUS, else
$XDG_CACHE_HOME/tessera/torch-corpus, else ~/.cache/tessera/torch-corpus. A model already in the
cache with the same STAMP is not exported again.

tests/torchcorpus/models.txt lists the corpus (name, group, "ci" for the few smallest that CI runs);
the ctest label `torchcorpus` (tests/torchcorpus/tst_torchcorpus.cpp) imports each cached model,
schedules it with every registered scheduler, verifies and runs each plan on the reference backend
and compares with output_K.pb (relative L2 under 1e-4). `check` fails when models.txt and
torchvision's registry disagree, so the corpus stays "every model".

Usage:
    tools/torch_corpus.py export [--ci | --all | NAME ...] [--cache DIR]   export (default: --ci)
    tools/torch_corpus.py check                                          models.txt == torchvision's list
    tools/torch_corpus.py report RESULTS.jsonl [--markdown FILE]        the per-model table (see docs/torch-corpus.md)

Exit code 77 (ctest's skip) when torch or torchvision cannot be imported.
"""

import argparse
import hashlib
import json
import os
import struct
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


def stamp():
    """Changes when this script changes: a cached model with another stamp is exported again."""
    with open(os.path.abspath(__file__), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


# --- ONNX TensorProto (float32), written by hand: no python3-onnx needed -----------------------


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def tensor_proto(name, array):
    """TensorProto{dims=1, data_type=2 (FLOAT=1), name=8, raw_data=9}."""
    import numpy as np

    a = np.ascontiguousarray(array, dtype="<f4")
    msg = bytearray()
    for d in a.shape:
        msg += varint(1 << 3) + varint(d)
    msg += varint(2 << 3) + varint(1)
    nb = name.encode()
    msg += varint((8 << 3) | 2) + varint(len(nb)) + nb
    raw = a.tobytes()
    msg += varint((9 << 3) | 2) + varint(len(raw)) + raw
    return bytes(msg)


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
    model.eval()
    torch.manual_seed(1)
    x = torch.randn(*shape)
    # nn.TransformerEncoderLayer takes a fused fast path (aten::_transformer_encoder_layer_fwd, which the
    # exporter cannot export) when autograd is off: the transformer keeps autograd on for the reference
    # output and the export, so both run the same ONNX-exportable layers.
    grad = group == "transformer"
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
    for k, (n, t) in enumerate(zip(out_names, ys)):
        with open(os.path.join(folder, f"output_{k}.pb"), "wb") as f:
            f.write(tensor_proto(n, t.detach().numpy()))
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
    failed = []
    for name, group, _ in rows:
        try:
            export_one(name, group, root, a.force)
        except Exception as e:  # one model's failure must not stop the others
            print(f"{name}: export failed: {type(e).__name__}: {e}", file=sys.stderr)
            failed.append(name)
    print(f"{len(rows) - len(failed)} of {len(rows)} models in {root}")
    return 1 if failed else 0


def cmd_report(a):
    """RESULTS.jsonl (one line per model and scheduler, written by tst_torchcorpus) -> markdown table."""
    models, scheds = {}, []
    with open(a.results) as f:
        for line in f:
            r = json.loads(line)
            m = models.setdefault(r["model"], {"runs": {}})
            for k in ("import_ms", "nodes", "folded", "gflops"):
                if k in r:
                    m[k] = r[k]
            if "scheduler" in r:
                m["runs"][r["scheduler"]] = r
                if r["scheduler"] not in scheds:
                    scheds.append(r["scheduler"])
            if "error" in r and "scheduler" not in r:
                m["error"] = r["error"]
    order = [n for n, _, _ in read_list() if n in models] + sorted(set(models) - {n for n, _, _ in read_list()})
    lines = ["| model | import ms | nodes | GFLOP | " + " | ".join(scheds) + " | max rel L2 |",
             "|---|---:|---:|---:|" + "---|" * len(scheds) + "---:|"]
    failures = []
    for n in order:
        m = models[n]
        cells, worst = [], None
        for s in scheds:
            r = m["runs"].get(s)
            if r is None:
                cells.append("–")
            elif r.get("ok"):
                cells.append(f"pass ({r['schedule_ms'] / 1000:.1f} s)")
                worst = max(worst or 0.0, r["rel_l2"])
            else:
                cells.append("**fail**")
                failures.append((n, s, r.get("error", "")))
        if "error" in m:
            failures.append((n, "import", m["error"]))
        lines.append(f"| {n} | {m.get('import_ms', 0):.0f} | {m.get('nodes', '–')} | {m.get('gflops', 0):.1f} | "
                     + " | ".join(cells) + f" | {'–' if worst is None else f'{worst:.1e}'} |")
    if failures:
        lines += ["", "| model | scheduler | error |", "|---|---|---|"]
        lines += [f"| {n} | {s} | {e.splitlines()[0][:200] if e else ''} |" for n, s, e in failures]
    text = "\n".join(lines) + "\n"
    if a.markdown:
        with open(a.markdown) as f:
            doc = f.read()
        begin, end = "<!-- torchcorpus table begin -->", "<!-- torchcorpus table end -->"
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
    r = sub.add_parser("report")
    r.add_argument("results")
    r.add_argument("--markdown")
    a = p.parse_args()
    if a.cmd == "export":
        return cmd_export(a)
    if a.cmd == "check":
        try:
            return 0 if check() else 1
        except ImportError as ex:
            print(f"skipped: {ex}")
            return SKIP
    return cmd_report(a)


if __name__ == "__main__":
    sys.exit(main())
