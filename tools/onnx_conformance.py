#!/usr/bin/env python3
"""ONNX conformance of Tessera through the user's path (issue 11, docs/conformance.md).

Runs every test of Debian's libonnx-testdata suites (node, pytorch-converted,
pytorch-operator, simple) the way a user runs a model:

    tessera-cli run MODEL --algo sequential --backend reference \
        --input NAME=input_K.pb ... --output-dir DIR

and compares DIR/output_N.pb with the suite's test_data_set_0/output_N.pb.
Integer and bool graph inputs are baked into the model as initializers first
(Tessera's shapes are static: shape tensors, axes, indices are compile-time
values), and so are float inputs that an op reads as a compile-time operand
(COMPILE_TIME_OPERANDS: Resize's roi and scales, Upsample's scales,
OneHot's depth, Range's start/limit/delta, NonMaxSuppression's boxes, scores
and thresholds, Unique's X, which decide the output shape, and Dropout's
ratio, a compile-time value in core/ops);
all other float inputs are passed with --input.

In scope: a test whose model and test_data_set_0 exist, whose graph inputs and
outputs are all tensors (no sequence/map/optional types), whose tensors are
not strings, and whose nodes are all in the default ONNX domain (not
ai.onnx.ml, not ai.onnx.preview.training). Everything else is counted as
out of scope with its reason.

ONNX 1.12's test generator stores bfloat16 tensors as uint16 bit patterns
(numpy has no bfloat16): an input_K.pb/output_N.pb of type uint16 for a graph
input/output the model declares bfloat16 is relabelled bfloat16 (same bits).

Comparison: element type and shape exactly; floats with ONNX's backend-test
tolerance |got - want| <= 1e-7 + 1e-3 |want| (NaN equals NaN); integers and
bools exactly.

Python standard library only: the protobuf wire format is read and written by
hand (the few fields of ModelProto/GraphProto/TensorProto this needs), in
tools/onnx_wire.py, which tools/torch_corpus.py shares.

Usage:
    tools/onnx_conformance.py --cli build/app/tessera-cli [--data DIR]
        [--suite node ...] [--jobs N] [--markdown docs/conformance.md]
        [--failures FILE] [--filter SUBSTRING]
"""

import argparse
import concurrent.futures
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

DATA = "/usr/share/libonnx-testdata/data"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_wire import (parse, serialize, get, first, tensor_values, UINT16, STRING, BFLOAT16, TYPE_NAMES, INTEGER_TYPES, FLOAT_TYPES)  # noqa: E402 (tools/ is on sys.path)

SUITES = ["node", "pytorch-converted", "pytorch-operator", "simple"]

def compare(got_bytes, want_bytes, index):
    got, want = parse(got_bytes), parse(want_bytes)
    gdt, gdims, gvals = tensor_values(got)
    wdt, wdims, wvals = tensor_values(want)
    if gdt != wdt or gdims != wdims:
        return "output %d is %s %s, expected %s %s" % (
            index, TYPE_NAMES.get(gdt, gdt), gdims, TYPE_NAMES.get(wdt, wdt), wdims)
    for i, (a, b) in enumerate(zip(gvals, wvals)):
        if wdt in FLOAT_TYPES:
            if math.isnan(a) and math.isnan(b):
                continue
            if a == b:
                continue
            if not abs(a - b) <= 1e-7 + 1e-3 * abs(b):
                return "output %d element %d is %r, expected %r" % (index, i, a, b)
        elif a != b:
            return "output %d element %d is %r, expected %r" % (index, i, a, b)
    return None


# --- one test -----------------------------------------------------------------------


def graph_info(model):
    graph = parse(first(model, 7, b""))
    nodes = [parse(n) for n in get(graph, 1)]
    inits = {first(parse(t), 8, b"").decode() for t in get(graph, 5)}
    return graph, nodes, inits


def value_type(vi):
    """('tensor', elem_type) or (kind, None) of a ValueInfoProto."""
    tp = parse(first(vi, 2, b""))
    tensor = first(tp, 1)
    if tensor is not None:
        return "tensor", first(parse(tensor), 1, 0)
    for field, kind in ((4, "sequence"), (5, "map"), (9, "optional"), (8, "sparse tensor")):
        if first(tp, field) is not None:
            return kind, None
    return "unknown", None


def scope(test_dir):
    """None when in scope, else the reason it is not."""
    if not os.path.exists(os.path.join(test_dir, "model.onnx")):
        return "no model.onnx"
    if not os.path.isdir(os.path.join(test_dir, "test_data_set_0")):
        return "no test_data_set_0"
    with open(os.path.join(test_dir, "model.onnx"), "rb") as f:
        model = parse(f.read())
    graph, nodes, _ = graph_info(model)
    for n in nodes:
        domain = first(n, 7, b"").decode()
        if domain not in ("", "ai.onnx"):
            return "op domain " + domain
    for vi in get(graph, 11) + get(graph, 12):
        kind, et = value_type(parse(vi))
        if kind != "tensor":
            return kind + " type"
        if et == STRING:
            return "string tensors"
    for t in get(graph, 5):
        if first(parse(t), 2, 0) == STRING:
            return "string tensors"
    return None


def ops_of(test_dir):
    with open(os.path.join(test_dir, "model.onnx"), "rb") as f:
        _, nodes, _ = graph_info(parse(f.read()))
    return sorted({first(n, 4, b"").decode() for n in nodes})


# Float operands whose value decides an output shape: op -> input positions.
COMPILE_TIME_OPERANDS = {"Resize": (1, 2), "Upsample": (1,), "OneHot": (1,), "Range": (0, 1, 2), "Dropout": (1,),
                         "NonMaxSuppression": (0, 1, 2, 3, 4), "Unique": (0,)}


def compile_time_inputs(nodes):
    """Names that some node reads at a position of COMPILE_TIME_OPERANDS."""
    names = set()
    for n in nodes:
        positions = COMPILE_TIME_OPERANDS.get(first(n, 4, b"").decode(), ())
        ins = [x.decode() for x in get(n, 1)]
        names.update(ins[p] for p in positions if p < len(ins) and ins[p])
    return names


def as_declared(tensor_bytes, declared):
    """A uint16 TensorProto relabelled bfloat16 when the model declares bfloat16
    (ONNX 1.12 stores bfloat16 test data as uint16 bits); otherwise unchanged."""
    t = parse(tensor_bytes)
    if declared != BFLOAT16 or first(t, 2, 0) != UINT16:
        return tensor_bytes
    return serialize([(2, 0, BFLOAT16) if f == 2 else (f, wt, v) for f, wt, v in t])


def run_test(cli, test_dir, work):
    """(passed, message)."""
    data = os.path.join(test_dir, "test_data_set_0")
    with open(os.path.join(test_dir, "model.onnx"), "rb") as f:
        model = parse(f.read())
    graph, nodes, inits = graph_info(model)
    compile_time = compile_time_inputs(nodes)
    inputs = [parse(vi) for vi in get(graph, 11)]
    inputs = [vi for vi in inputs if first(vi, 1, b"").decode() not in inits]
    baked, args = [], []
    for k, vi in enumerate(inputs):
        name = first(vi, 1, b"").decode()
        path = os.path.join(data, "input_%d.pb" % k)
        _, et = value_type(vi)
        if et in INTEGER_TYPES or name in compile_time:
            with open(path, "rb") as f:
                t = [x for x in parse(f.read()) if x[0] != 8]
            baked.append((name, serialize(t + [(8, 2, name.encode())])))
        else:
            with open(path, "rb") as f:
                data_bytes = f.read()
            relabelled = as_declared(data_bytes, et)
            if relabelled is not data_bytes:
                path = os.path.join(work, "input_%d.pb" % k)
                with open(path, "wb") as f:
                    f.write(relabelled)
            args += ["--input", "%s=%s" % (name, path)]
    model_path = os.path.join(test_dir, "model.onnx")
    if baked:
        # IR version < 4 requires every initializer to be a graph input as well.
        names = {n for n, _ in baked} if first(model, 1, 0) >= 4 else set()
        new_graph = [x for x in graph if not (x[0] == 11 and first(parse(x[2]), 1, b"").decode() in names)]
        new_graph += [(5, 2, t) for _, t in baked]
        new_model = [x for x in model if x[0] != 7] + [(7, 2, serialize(new_graph))]
        model_path = os.path.join(work, "model.onnx")
        with open(model_path, "wb") as f:
            f.write(serialize(new_model))
    out_dir = os.path.join(work, "out")
    cmd = [cli, "run", model_path, "--algo", "sequential", "--backend", "reference", "--output-dir", out_dir] + args
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return False, "timeout after 120 s"
    if p.returncode != 0:
        msg = (p.stderr.strip() or p.stdout.strip() or "exit code %d" % p.returncode).splitlines()
        return False, msg[0] if msg else "exit code %d" % p.returncode
    outputs = [parse(vi) for vi in get(graph, 12)]
    for k, vi in enumerate(outputs):
        got = os.path.join(out_dir, "output_%d.pb" % k)
        if not os.path.exists(got):
            return False, "no output %d" % k
        with open(got, "rb") as f:
            got_bytes = f.read()
        with open(os.path.join(data, "output_%d.pb" % k), "rb") as f:
            want_bytes = as_declared(f.read(), value_type(vi)[1])
        try:
            diff = compare(got_bytes, want_bytes, k)
        except ValueError as e:
            return False, "cannot compare output %d: %s" % (k, e)
        if diff:
            return False, diff
    return True, ""


def job(cli, suite, test_dir):
    reason = scope(test_dir)
    if reason:
        return suite, os.path.basename(test_dir), "out", reason, []
    ops = ops_of(test_dir)
    work = tempfile.mkdtemp(prefix="tessera-conf-")
    try:
        ok, msg = run_test(cli, test_dir, work)
    except (ValueError, IndexError, struct.error) as e:
        ok, msg = False, "harness: %s" % e
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return suite, os.path.basename(test_dir), "pass" if ok else "fail", msg, ops


# --- report -------------------------------------------------------------------------

# Written into the report: choices that decide which tests can pass.
DECISIONS = [
    "- **Random ops** (Bernoulli, RandomUniform(Like), RandomNormal(Like), Multinomial, Dropout in",
    "  training mode) are refused, naming the node, not generated. ONNX's test generator states that",
    "  these draws are not reproducible across implementations even with a seed, and its runner",
    "  compares values, not just shapes and types, so a seeded generator could only fail them or be",
    "  special-cased by a comparison that cannot fail. Import-time folding never evaluates them.",
    "- **Constant folding at import** (core/onnx/fold_constants.h) runs every node whose inputs are",
    "  all constants on the reference backend's kernels, up to 2^20 elements per tensor, and computes",
    "  the dims ONNX's inference leaves symbolic; a dim that depends on run-time data is refused",
    "  naming the node.",
    "- **Control flow** (core/onnx/inline_control_flow.cpp): If with a constant condition is inlined;",
    "  Loop with a constant trip count of 1 to 64 (at most 4096 copied nodes) whose body passes its",
    "  condition through, and Scan (opset >= 9) over statically declared lengths, are unrolled.",
    "  Anything else stays opaque with a warning naming the node and the reason.",
    "- **Sequences** (core/onnx/resolve_sequences.cpp): a sequence built inside the graph from",
    "  constant positions and splits (SequenceEmpty/Construct/Insert/Erase/At/Length, SplitToSequence,",
    "  ConcatFromSequence) becomes the tensors it holds (Identity, Split, Unsqueeze + Concat,",
    "  Constant). A sequence that is a graph input or output, or whose makeup depends on run-time",
    "  values, stays out of scope or opaque with a warning naming the node. Zero-sized dims are not",
    "  carried (`--dim` takes N >= 1), so a test whose input has an empty dim fails at its input.",
]


def markdown(results, elapsed):
    lines = ["# ONNX conformance", "",
             "Generated by `tools/onnx_conformance.py` (do not edit by hand): every test of Debian's",
             "`libonnx-testdata` run through the user's path, `tessera-cli run MODEL --algo sequential",
             "--backend reference --input … --output-dir …`, integer inputs baked in as initializers.",
             "See the script's header for what is in scope and how outputs are compared.", "",
             "## Per suite", "", "| suite | tests | in scope | pass | fail | pass % |", "|---|---:|---:|---:|---:|---:|"]
    total = [0, 0, 0, 0]
    for suite in SUITES:
        rs = [r for r in results if r[0] == suite]
        ins = [r for r in rs if r[2] != "out"]
        p = sum(r[2] == "pass" for r in rs)
        row = [len(rs), len(ins), p, len(ins) - p]
        total = [a + b for a, b in zip(total, row)]
        pct = 100.0 * p / len(ins) if ins else 0.0
        lines.append("| %s | %d | %d | %d | %d | %.1f |" % (suite, row[0], row[1], row[2], row[3], pct))
    pct = 100.0 * total[2] / total[1] if total[1] else 0.0
    lines.append("| **all** | %d | %d | %d | %d | %.1f |" % (total[0], total[1], total[2], total[3], pct))
    lines += ["", "Run time: %.0f s." % elapsed, "", "## Out of scope", "", "| reason | tests |", "|---|---:|"]
    reasons = {}
    for r in results:
        if r[2] == "out":
            reasons[r[3]] = reasons.get(r[3], 0) + 1
    for reason, n in sorted(reasons.items(), key=lambda x: -x[1]):
        lines.append("| %s | %d |" % (reason, n))
    lines += ["", "## Failing in-scope tests", "",
              "Each with the first line tessera-cli printed: the refusal names the node and why.", "",
              "| test | ops | message |", "|---|---|---|"]
    for r in sorted(results, key=lambda r: (r[0], r[1])):
        if r[2] == "fail":
            msg = r[3].replace("|", "\\|")
            msg = msg if len(msg) <= 160 else msg[:157] + "..."
            lines.append("| %s/%s | %s | %s |" % (r[0], r[1], " ".join(r[4]), msg))
    lines += ["", "## Decisions", ""] + DECISIONS
    lines += ["", "## Per op (in-scope tests that use the op)", "", "| op | pass | fail |", "|---|---:|---:|"]
    per_op = {}
    for r in results:
        if r[2] == "out":
            continue
        for op in r[4]:
            c = per_op.setdefault(op, [0, 0])
            c[0 if r[2] == "pass" else 1] += 1
    for op in sorted(per_op):
        lines.append("| %s | %d | %d |" % (op, per_op[op][0], per_op[op][1]))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", default="build/app/tessera-cli")
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--suite", action="append", choices=SUITES)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--filter", default="")
    ap.add_argument("--markdown")
    ap.add_argument("--failures", help="write one line per failing test: suite/test<TAB>message")
    a = ap.parse_args()
    if not os.path.exists(a.cli):
        sys.exit("tessera-cli not found at %s (build it or pass --cli)" % a.cli)
    cli = os.path.abspath(a.cli)
    todo = []
    for suite in a.suite or SUITES:
        root = os.path.join(a.data, suite)
        if not os.path.isdir(root):
            sys.exit("no suite folder %s (is libonnx-testdata installed?)" % root)
        for t in sorted(os.listdir(root)):
            if t.startswith("test_") and a.filter in t:
                todo.append((suite, os.path.join(root, t)))
    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        results = list(pool.map(lambda st: job(cli, st[0], st[1]), todo))
    elapsed = time.time() - start
    report = markdown(results, elapsed)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(report)
    if a.failures:
        with open(a.failures, "w") as f:
            for r in results:
                if r[2] == "fail":
                    f.write("%s/%s\t%s\t%s\n" % (r[0], r[1], " ".join(r[4]), r[3]))
    print(report.split("## Out of scope")[0].strip())


if __name__ == "__main__":
    main()
