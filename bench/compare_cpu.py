#!/usr/bin/python3
# compare_cpu.py: Tessera's CPU backend against ONNX Runtime (CPU build, npm
# onnxruntime-node) and PyTorch (eager and TorchScript), side by side in one
# run, batch 1, THREADS threads (issue 13, "Speed").
#
# Models: torchvision's ResNet-50, Inception-V3, MobileNetV2, SqueezeNet 1.0,
# DenseNet-121 (random weights, torch.manual_seed(0)), a BERT-base encoder
# layer (hidden 768, 12 heads, FFN 3072, GELU; sequence 128) and
# torch.nn.TransformerEncoder (6 layers, d_model 512, 8 heads, FFN 2048;
# sequence 128). Each is exported once to ONNX (opset 17) into a cache folder
# ($TESSERA_BENCH_CACHE, default ~/.cache/tessera/bench-models; never in the
# repository); ONNX Runtime and Tessera read the same file, PyTorch runs the
# module the file was exported from (same weights).
#
# Every framework is a long-lived worker process (this script with --worker
# torch, bench/ort/ort_worker.js, build/bench/bench_cpu_serve) that loads and
# warms every model, then answers "run MODEL" with the wall and CPU time of
# one inference measured inside the worker. The driver interleaves: ROUNDS
# rounds, each running every model once on every framework in a shuffled
# order, so the machine's load falls on all of them alike. CPU time is the
# worker process's (all its threads); on a machine shared with other jobs it
# leaves out the time spent waiting for a core, but counts spinning threads.
#
# Tessera's worker schedules every model with every registered scheduler,
# compiles each plan on the CPU backend, screens them (3 runs each) and keeps
# the best two, both measured in the rounds; its column is the better of the
# two by median, named with its scheduler.
#
# Spin-waiting: libgomp (PyTorch, oneDNN) and ONNX Runtime's thread pool
# spin between parallel regions; on a machine shared with other jobs a
# spinning thread burns the core its partner needs (ResNet-50 on PyTorch eager:
# 13 s a run instead of ~0.2 s at load 25). By default every worker runs
# without it (OMP_WAIT_POLICY=PASSIVE, session.intra_op.allow_spinning=0);
# --spin keeps the runtimes' defaults.
#
# Roofline: the host device preset (`tessera-cli devices show host`) gives
# the f32 peak and DRAM bandwidth; a model's bound is max(FLOPs / peak,
# weight bytes / DRAM bandwidth) at THREADS of the host's cores, and
# "% roof" is that bound over Tessera's median time.
#
# Setup: build bench_cpu_serve; `cd bench/ort && npm ci` (the lock pins
# onnxruntime-node; .npmrc skips its install script, which only fetches GPU
# binaries: the CPU build ships in the package); Debian python3-torch and
# python3-torchvision for /usr/bin/python3.
#
# Usage: /usr/bin/python3 bench/compare_cpu.py [--rounds N] [--threads 2]
#            [--models a,b] [--build build] [--metric wall|cpu] [--spin]
#            [--schedulers a,b] [--tessera-only] [--tessera-alt OTHER_bench_cpu_serve]
import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODELS = ["resnet50", "inception_v3", "mobilenet_v2", "squeezenet", "densenet121", "bert_layer", "transformer"]


def cache_dir():
    d = os.environ.get("TESSERA_BENCH_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "tessera",
                                                               "bench-models")
    os.makedirs(d, exist_ok=True)
    return d


# --- models (PyTorch side) ---------------------------------------------------

def build_model(name):
    import torch
    import torchvision
    torch.manual_seed(0)
    if name == "resnet50":
        return torchvision.models.resnet50(), (1, 3, 224, 224)
    if name == "inception_v3":
        return torchvision.models.inception_v3(aux_logits=False, init_weights=False), (1, 3, 299, 299)
    if name == "mobilenet_v2":
        return torchvision.models.mobilenet_v2(), (1, 3, 224, 224)
    if name == "squeezenet":
        return torchvision.models.squeezenet1_0(), (1, 3, 224, 224)
    if name == "densenet121":
        return torchvision.models.densenet121(), (1, 3, 224, 224)
    if name == "bert_layer":
        return BertLayer(), (1, 128, 768)
    if name == "transformer":
        layer = torch.nn.TransformerEncoderLayer(512, 8, 2048, dropout=0.0, batch_first=True)
        return torch.nn.TransformerEncoder(layer, 6, enable_nested_tensor=False), (1, 128, 512)
    raise SystemExit("unknown model " + name)


def _torch_module_base():
    import torch
    return torch.nn.Module


class BertLayer(_torch_module_base()):
    """One BERT-base encoder layer (Devlin et al.): self-attention, add & norm, GELU FFN, add & norm."""

    def __init__(self, hidden=768, heads=12, ffn=3072):
        import torch
        super().__init__()
        self.heads = heads
        self.q = torch.nn.Linear(hidden, hidden)
        self.k = torch.nn.Linear(hidden, hidden)
        self.v = torch.nn.Linear(hidden, hidden)
        self.o = torch.nn.Linear(hidden, hidden)
        self.ln1 = torch.nn.LayerNorm(hidden, eps=1e-12)
        self.ff1 = torch.nn.Linear(hidden, ffn)
        self.ff2 = torch.nn.Linear(ffn, hidden)
        self.ln2 = torch.nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, x):
        import torch
        b, s, h = x.shape
        d = h // self.heads

        def split(t):
            return t.view(b, s, self.heads, d).transpose(1, 2)

        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d), dim=-1)
        ctx = (att @ v).transpose(1, 2).reshape(b, s, h)
        x = self.ln1(x + self.o(ctx))
        return self.ln2(x + self.ff2(torch.nn.functional.gelu(self.ff1(x))))


def export_models(names):
    import torch
    paths = {}
    for name in names:
        path = os.path.join(cache_dir(), name + ".onnx")
        paths[name] = path
        if os.path.exists(path):
            continue
        model, shape = build_model(name)
        model.eval()
        torch.manual_seed(1)
        x = torch.randn(*shape)
        # With autograd on: TransformerEncoderLayer's inference fast path
        # (aten::_transformer_encoder_layer_fwd, no ONNX export) stays off.
        torch.onnx.export(model, x, path + ".tmp", opset_version=17, input_names=["input"],
                          output_names=["output"], do_constant_folding=True)
        os.replace(path + ".tmp", path)
        print("exported", path, file=sys.stderr)
    return paths


# --- workers -------------------------------------------------------------------

def torch_worker(names, threads):
    import torch
    torch.set_num_threads(threads)
    torch.set_num_interop_threads(1)
    fns = {}
    for name in names:
        model, shape = build_model(name)
        model.eval()
        torch.manual_seed(1)
        x = torch.randn(*shape)
        with torch.no_grad():
            traced = torch.jit.freeze(torch.jit.trace(model, x))
            for _ in range(3):  # warm-up, and the TorchScript profiling executor's runs
                model(x)
                traced(x)
        fns[name + "/eager"] = (model, x)
        fns[name + "/torchscript"] = (traced, x)
    print(json.dumps({"ready": sorted(fns)}), flush=True)
    for line in sys.stdin:
        cmd = line.split()
        if not cmd or cmd[0] == "quit":
            break
        fn, x = fns[cmd[1]]
        with torch.no_grad():
            c0, t0 = time.process_time(), time.perf_counter()
            fn(x)
            t1, c1 = time.perf_counter(), time.process_time()
        print(json.dumps({"wall": (t1 - t0) * 1e3, "cpu": (c1 - c0) * 1e3}), flush=True)


class Worker:
    """A worker process; started at once, ready() waits for its loading line."""

    def __init__(self, label, argv, env):
        self.label = label
        self.info = None
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
                                     bufsize=1)

    def ready(self):
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(self.label + " worker died while loading")
        self.info = json.loads(line)

    def run(self, key):
        self.proc.stdin.write("run " + key + "\n")
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(self.label + " worker died running " + key)
        r = json.loads(line)
        if "error" in r:
            raise SystemExit(self.label + ": " + r["error"])
        return r

    def close(self):
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        self.proc.wait()


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--metric", choices=["wall", "cpu"], default="cpu", help="the first table's (both are printed)")
    ap.add_argument("--schedulers", default="sequential,greedy,layer-fusion,ios,pcgc",
                    help="Tessera's schedulers to try per model (graphturbo, welder and brickdl tile their kernels, "
                    "and tiled tasks run on reference kernels: docs/cpu-backend.md)")
    ap.add_argument("--spin", action="store_true",
                    help="keep the runtimes' spin-waiting (default: OMP_WAIT_POLICY=PASSIVE for PyTorch's and "
                    "oneDNN's libgomp, ONNX Runtime's session.intra_op.allow_spinning=0)")
    ap.add_argument("--worker", choices=["torch"])
    ap.add_argument("--tessera-only", action="store_true", help="skip ORT and PyTorch (quick before/after runs)")
    ap.add_argument("--tessera-alt", help="a second bench_cpu_serve binary measured in the same rounds (before/after)")
    args = ap.parse_args()
    names = args.models.split(",")
    if args.worker == "torch":
        return torch_worker(names, args.threads)

    paths = export_models(names)
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), TESSERA_BENCH_SCHEDULERS=args.schedulers,
               TESSERA_BENCH_SCHEDULE_S=os.environ.get("TESSERA_BENCH_SCHEDULE_S", "60"))
    if not args.spin:
        env["OMP_WAIT_POLICY"] = "PASSIVE"
    serve = os.path.join(args.build, "bench", "bench_cpu_serve")
    model_args = [n + "=" + paths[n] for n in names]
    t0 = time.time()
    workers = {}
    workers["tessera"] = Worker("tessera", [serve, str(args.threads)] + model_args, env)
    if args.tessera_alt:
        workers["tessera-alt"] = Worker("tessera-alt", [args.tessera_alt, str(args.threads)] + model_args, env)
    if not args.tessera_only:
        workers["ort"] = Worker("ort", ["node", os.path.join(HERE, "ort", "ort_worker.js"), str(args.threads),
                                        "spin" if args.spin else "nospin"] + model_args, env)
        workers["torch"] = Worker("torch", [sys.executable, os.path.abspath(__file__), "--worker", "torch",
                                            "--models", args.models, "--threads", str(args.threads)], env)
    for w in workers.values():  # they load concurrently
        w.ready()
    print("workers loaded in %.0f s" % (time.time() - t0), file=sys.stderr)

    # keys: (column, model) -> (worker, worker key)
    columns = []
    jobs = {}
    for label in ("tessera", "tessera-alt"):
        if label not in workers:
            continue
        info = workers[label].info
        for n in names:
            for plan in info["models"][n]["candidates"]:
                jobs[(label + ":" + plan, n)] = (workers[label], n + "/" + plan)
    if "ort" in workers:
        columns += ["ort"]
        for n in names:
            jobs[("ort", n)] = (workers["ort"], n)
    if "torch" in workers:
        columns += ["eager", "torchscript"]
        for n in names:
            jobs[("eager", n)] = (workers["torch"], n + "/eager")
            jobs[("torchscript", n)] = (workers["torch"], n + "/torchscript")

    samples = {k: {"wall": [], "cpu": []} for k in jobs}
    rng = random.Random(0)
    for r in range(args.rounds):
        for n in names:
            keys = [k for k in jobs if k[1] == n]
            rng.shuffle(keys)
            for k in keys:
                w, key = jobs[k]
                res = w.run(key)
                samples[k]["wall"].append(res["wall"])
                samples[k]["cpu"].append(res["cpu"])
        print("round %d/%d done (%.0f s)" % (r + 1, args.rounds, time.time() - t0), file=sys.stderr)
    for w in workers.values():
        w.close()

    med = {k: {m: statistics.median(v[m]) for m in ("wall", "cpu")} for k, v in samples.items()}
    out = []
    for metric in ([args.metric] + [m for m in ("wall", "cpu") if m != args.metric]):
        out += table(args, names, workers, jobs, columns, med, samples, metric) + [""]
    print("\n".join(out))


def table(args, names, workers, jobs, columns, med, samples, metric):
    spread = {k: (min(v[metric]), max(v[metric])) for k, v in samples.items()}

    def best_tessera(label, n):
        cands = [k for k in jobs if k[1] == n and k[0].startswith(label + ":")]
        return min(cands, key=lambda k: med[k][metric]) if cands else None

    host = workers["tessera"].info["host"]
    lines = []
    lines.append("%d rounds, %d threads, batch 1, %s; median %s time per inference (ms); host: %s, f32 peak %.0f "
                 "GFLOP/s at %d threads, DRAM %.1f GB/s" % (args.rounds, args.threads,
                                                            "spin-waiting" if args.spin else "no spin-waiting", metric,
                                                            host["name"], host["peak_gflops"], args.threads,
                                                            host["dram_gbs"]))
    hdr = "| model | GFLOP | tessera ms | best plan | " + " | ".join(c + " ms" for c in columns)
    if "tessera-alt" in workers:
        hdr += " | tessera-alt ms | alt plan | alt/tessera"
    hdr += " | tessera/ort | tessera/eager | % roof | tessera min-max |"
    lines.append(hdr)
    lines.append("|" + "---|" * (hdr.count("|") - 1))
    ratios = {"ort": [], "eager": [], "torchscript": [], "alt": []}
    geo = {c: [] for c in ["tessera", "alt"] + columns}
    for n in names:
        m = workers["tessera"].info["models"][n]
        bk = best_tessera("tessera", n)
        t = med[bk][metric]
        geo["tessera"].append(t)
        row = "| %s | %.2f | %.1f | %s |" % (n, m["gflop"], t, bk[0].split(":", 1)[1])
        for c in columns:
            v = med[(c, n)][metric]
            geo[c].append(v)
            row += " %.1f |" % v
        if "tessera-alt" in workers:
            ak = best_tessera("tessera-alt", n)
            a = med[ak][metric]
            geo["alt"].append(a)
            ratios["alt"].append(a / t)
            row += " %.1f | %s | %.2f |" % (a, ak[0].split(":", 1)[1], a / t)
        for c in ("ort", "eager"):
            if c in columns:
                ratios[c].append(t / med[(c, n)][metric])
                row += " %.2f |" % (t / med[(c, n)][metric])
            else:
                row += " - |"
        roof = m["roofline_ms"]
        row += " %.0f %% | %.1f-%.1f |" % (100 * roof / t, spread[bk][0], spread[bk][1])
        lines.append(row)
    row = "| geomean | | %.1f | |" % geomean(geo["tessera"])
    for c in columns:
        row += " %.1f |" % geomean(geo[c])
    if "tessera-alt" in workers:
        row += " %.1f | | %.2f |" % (geomean(geo["alt"]), geomean(ratios["alt"]))
    for c in ("ort", "eager"):
        row += (" %.2f |" % geomean(ratios[c])) if ratios[c] else " - |"
    row += " | |"
    lines.append(row)
    lines.append("")
    lines.append("every Tessera plan measured (median %s ms):" % metric)
    for label in ("tessera", "tessera-alt"):
        if label not in workers:
            continue
        for n in names:
            m = workers[label].info["models"][n]
            cands = ", ".join("%s %.1f" % (k[0].split(":", 1)[1], med[k][metric]) for k in jobs
                              if k[1] == n and k[0].startswith(label + ":"))
            screened = ", ".join("%s %s" % (p, ("%.1f" % s["cpu_ms"]) if "cpu_ms" in s else s.get("error", "?")[:70])
                                 for p, s in m["screened"].items())
            lines.append("- %s %s: rounds: %s; screening (cpu ms, 3 runs): %s" % (label, n, cands, screened))
    return lines


if __name__ == "__main__":
    sys.exit(main())
