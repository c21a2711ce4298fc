#!/usr/bin/env python3
"""Runs .ci/check-layering on two small trees under tests/ci/layering/: `good`
passes silently; `bad` (its twin) fails with exactly one line per kind of
violation and none for its excepted include."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, '..', '..', '.ci', 'check-layering')

EXPECTED_BAD = [
    'app/cli/run.cpp:1: app may not include backends/fast/fast.h (only app/registerbuiltins.cpp registers it)',
    'core/io/fooformat.h:1: core/io may not hold code of plugins/foo (the file is named after it)',
    'core/plan/plan.h:1: core/plan may not include core/cost/costmodel.h',
    'plugins/foo/gui/foogui.cpp:2: plugins/foo/gui may not include plugins/bar/bar.h',
    'views/widgets/controller.cpp:2: views/widgets may not call scheduleGraph(',
    'core/plan/CMakeLists.txt:2: core/plan may not link tessera_cost (core/cost)',
    'core/cost/costmodel.h:1: core/cost includes core/plan/plan.h but core/cost/CMakeLists.txt does not link tessera_plan',
    'core/cost/costmodel.h:2: core/cost includes core/support/status.h but core/cost/CMakeLists.txt does not link '
    'tessera_support',
]


def run(tree):
    return subprocess.run([sys.executable, SCRIPT, '--root', os.path.join(HERE, 'layering', tree)],
                          capture_output=True, text=True)


def main():
    failures = []
    good = run('good')
    if good.returncode != 0 or good.stdout:
        failures.append(f'good: exit {good.returncode}, output:\n{good.stdout}{good.stderr}')
    bad = run('bad')
    if bad.returncode != 1:
        failures.append(f'bad: exit {bad.returncode}, expected 1\n{bad.stderr}')
    if bad.stdout.splitlines() != EXPECTED_BAD:
        failures.append('bad: got\n' + bad.stdout + 'expected\n' + '\n'.join(EXPECTED_BAD))
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
