// ort_worker.js: the ONNX Runtime (CPU build, npm onnxruntime-node) worker of
// bench/compare_cpu.py. Loads every model (sequential execution, all graph
// optimisations, THREADS intra-op threads, one inter-op thread), warms each
// up, prints one JSON line {"ready": [...]}, then answers each "run MODEL"
// line with {"wall": ms, "cpu": ms} of one inference: wall from
// process.hrtime, CPU from process.cpuUsage (the whole process, all threads).
//
// "nospin" turns off the intra-op pool's spin-waiting
// (session.intra_op.allow_spinning = 0), for a machine shared with other jobs.
//
// Usage: node ort_worker.js THREADS spin|nospin NAME=PATH.onnx...
'use strict';
const ort = require('onnxruntime-node');
const readline = require('readline');

function randomInput(dims, seed) {
    // xorshift32, uniform [-1, 1): the same kind of input as the other workers
    let s = seed >>> 0 || 1;
    const n = dims.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    for (let i = 0; i < n; ++i) {
        s ^= s << 13;
        s >>>= 0;
        s ^= s >>> 17;
        s ^= s << 5;
        s >>>= 0;
        data[i] = (s / 4294967296) * 2 - 1;
    }
    return new ort.Tensor('float32', data, dims);
}

async function main() {
    const threads = parseInt(process.argv[2], 10);
    const spin = process.argv[3] === 'spin';
    const models = {};
    for (const spec of process.argv.slice(4)) {
        const eq = spec.indexOf('=');
        const name = spec.slice(0, eq);
        const session = await ort.InferenceSession.create(spec.slice(eq + 1), {
            executionProviders: ['cpu'],
            intraOpNumThreads: threads,
            interOpNumThreads: 1,
            executionMode: 'sequential',
            graphOptimizationLevel: 'all',
            extra: {session: {intra_op: {allow_spinning: spin ? '1' : '0'}}},
        });
        // Input shapes: the benchmark's models have one float input with static dims.
        const meta = session.inputMetadata ? session.inputMetadata[0] : null;
        let dims = meta && meta.shape ? meta.shape.map((d) => (typeof d === 'number' ? d : 1)) : null;
        if (!dims)
            throw new Error(name + ': cannot read the input shape');
        const feeds = {[session.inputNames[0]]: randomInput(dims, 1)};
        for (let i = 0; i < 3; ++i)
            await session.run(feeds);
        models[name] = {session, feeds};
    }
    process.stdout.write(JSON.stringify({ready: Object.keys(models), version: ort.env.versions}) + '\n');
    const rl = readline.createInterface({input: process.stdin});
    for await (const line of rl) {
        const cmd = line.trim().split(/\s+/);
        if (cmd[0] === 'quit' || cmd[0] === '')
            break;
        const m = models[cmd[1]];
        if (!m) {
            process.stdout.write(JSON.stringify({error: 'unknown model ' + cmd[1]}) + '\n');
            continue;
        }
        const c0 = process.cpuUsage();
        const t0 = process.hrtime.bigint();
        await m.session.run(m.feeds);
        const t1 = process.hrtime.bigint();
        const c = process.cpuUsage(c0);
        process.stdout.write(JSON.stringify({wall: Number(t1 - t0) / 1e6, cpu: (c.user + c.system) / 1e3}) + '\n');
    }
    process.exit(0);
}

main().catch((e) => {
    process.stderr.write(String(e && e.stack ? e.stack : e) + '\n');
    process.exit(1);
});
