#!/usr/bin/python3
"""Every model under every scheduler on the CPU backend, checked against the reference backend.

Issue 13's "done when": every sample and every imported model that the reference backend runs
also runs on the CPU backend under every scheduler, matching the reference backend (relative L2
under 1e-4). tst_cpu checks four schedulers on four samples in CI; this sweeps the rest, too slow
for CI: each bundled sample (built with `tessera-cli sample` at the sizes below, small enough that
the reference run is seconds) and each model of the PyTorch corpus cache (tools/torch_corpus.py,
whatever it holds), times every scheduler `tessera-cli algorithms --json` lists, through

    tessera-cli run MODEL --algo A --backend cpu --check --json

(the plan for the host preset, compiled and run natively, then the same plan and inputs on the
reference backend, per output relative L2). A cell is the worst output's relative L2, and how many
ops ran on reference kernels inside the CPU backend (its fallback, reported, never silent); a
failure keeps the CLI's one-line message.

Usage:
    tools/cpu_sweep.py --cli build/app/tessera-cli [--corpus DIR] [--work DIR] [--markdown FILE]
                       [--only NAME,...] [--algos A,...] [--timeout S]
Exit code 1 when any run fails or misses the tolerance.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

# name -> extra `tessera-cli sample` arguments: reduced sizes keep the reference runs short; the
# operators, the graph shape and every scheduler's decisions are the full network's.
SAMPLES = {
    "resnet50": ["--image-size", "64"],
    "resnet18-tailor": ["--image-size", "64"],
    "mobilenetv2": ["--image-size", "64"],
    "bert": ["--seq-len", "32"],
    "vit": [],
    "densenet121": ["--image-size", "64"],
    "vgg16": ["--image-size", "64"],
    "darknet53": ["--image-size", "64"],
    "nerf-mlp": [],
    "conformer": ["--seq-len", "32"],
    "inception-v3": [],
    "squeezenet": [],
    "randwire": [],
    "nasnet-a": [],
}


def corpus_dir(arg):
    if arg:
        return arg
    if os.environ.get("TESSERA_TORCH_CORPUS"):
        return os.environ["TESSERA_TORCH_CORPUS"]
    cache = os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache"))
    return os.path.join(cache, "tessera", "torch-corpus")


def run_one(cli, model, algo, timeout):
    start = time.monotonic()
    try:
        p = subprocess.run([cli, "run", model, "--algo", algo, "--backend", "cpu", "--check", "--json"],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": "timed out after %d s" % timeout, "wall_s": timeout}
    wall = time.monotonic() - start
    try:
        d = json.loads(p.stdout)
    except ValueError:
        msg = (p.stderr.strip().splitlines() or ["exit %d, no output" % p.returncode])[-1]
        return {"ok": False, "error": msg, "wall_s": wall}
    check = d.get("check", {})
    worst = max((o.get("rel_l2", 0.0) for o in check.get("outputs", [])), default=0.0)
    ops = d.get("metrics", {}).get("ops", {})
    return {"ok": bool(check.get("ok")) and p.returncode == 0, "rel_l2": worst,
            "reference_ops": ops.get("reference", 0), "ops": sum(ops.values()),
            "latency_ms": d.get("latency_ms"), "wall_s": wall,
            "error": "" if check.get("ok") else "outside the tolerance"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", required=True)
    ap.add_argument("--corpus")
    ap.add_argument("--work")
    ap.add_argument("--markdown")
    ap.add_argument("--only")
    ap.add_argument("--algos")
    ap.add_argument("--timeout", type=int, default=900)
    a = ap.parse_args()

    algos = [x["name"] for x in json.loads(subprocess.check_output([a.cli, "algorithms", "--json"]))]
    if a.algos:
        algos = [x for x in algos if x in a.algos.split(",")]
    work = a.work or tempfile.mkdtemp(prefix="cpu-sweep.")
    os.makedirs(work, exist_ok=True)
    keep = a.only.split(",") if a.only else None
    models = []
    for name, extra in SAMPLES.items():
        if keep and name not in keep:
            continue
        path = os.path.join(work, name + ".onnx")
        if not os.path.exists(path):
            p = subprocess.run([a.cli, "sample", name, "--out", path] + extra, capture_output=True, text=True)
            if p.returncode != 0:  # a network that takes only its own size (VGG-16: 224, NasNet-A: 331)
                extra = []
                subprocess.check_call([a.cli, "sample", name, "--out", path], stdout=subprocess.DEVNULL)
            with open(path + ".args", "w") as f:
                f.write(" ".join(extra))
        with open(path + ".args") as f:
            models.append(((name + " " + f.read()).strip(), path))
    corpus = corpus_dir(a.corpus)
    if os.path.isdir(corpus):
        for name in sorted(os.listdir(corpus)):
            path = os.path.join(corpus, name, "model.onnx")
            if os.path.exists(path) and (not keep or name in keep):
                models.append(("torch:" + name, path))

    rows, failures = [], 0
    for label, path in models:
        row = {"model": label, "runs": {}}
        for algo in algos:
            r = run_one(a.cli, path, algo, a.timeout)
            row["runs"][algo] = r
            failures += not r["ok"]
            status = "ok" if r["ok"] else "FAIL " + r["error"]
            print("%-34s %-13s %-50s rel L2 %-9s ref ops %-3s %.1f s" % (
                label, algo, status[:50], "%.1e" % r.get("rel_l2", 0) if "rel_l2" in r else "-",
                r.get("reference_ops", "-"), r["wall_s"]), flush=True)
        rows.append(row)

    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write("| model | " + " | ".join(algos) + " |\n")
            f.write("| --- |" + " ---: |" * len(algos) + "\n")
            for row in rows:
                cells = []
                for algo in algos:
                    r = row["runs"][algo]
                    if not r["ok"]:
                        cells.append("**fail**: " + r["error"].replace("|", "/")[:80])
                    else:
                        ref = " (%d ref)" % r["reference_ops"] if r["reference_ops"] else ""
                        cells.append("%.0e%s" % (r["rel_l2"], ref))
                f.write("| " + row["model"] + " | " + " | ".join(cells) + " |\n")
    total = sum(len(r["runs"]) for r in rows)
    print("cpu sweep: %d runs, %d passed, %d failed" % (total, total - failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
