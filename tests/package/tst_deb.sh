#!/usr/bin/env bash
# The .deb as a user gets it, without a container: builds the package target,
# unpacks the .deb with `dpkg -x` into a temporary folder, checks its desktop
# entry, MIME types, icon and man pages, and runs the unpacked tessera-cli on
# the bundled sample (schedule with IOS, run on the reference backend) and the
# unpacked workbench's --version without a display. docs/packaging.md.
# Usage: tst_deb.sh BUILD_DIR
set -euo pipefail
build="${1:?usage: tst_deb.sh BUILD_DIR}"
# TESSERA_DEB_NO_BUILD=1: test the .deb already built (e.g. by `cpack` after building only the programs).
if [[ -z "${TESSERA_DEB_NO_BUILD:-}" ]]; then cmake --build "$build" --target package >/dev/null; fi
deb="$(ls -t "$build"/tessera_*.deb | head -1)"
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
dpkg -x "$deb" "$root"
fail() { echo "tst_deb: $*" >&2; exit 1; }

# Metadata: a Depends line from dpkg-shlibdeps, and the files a desktop needs.
dpkg-deb -f "$deb" Depends | grep -q libqt6widgets6 || fail "Depends lacks Qt 6 Widgets: $(dpkg-deb -f "$deb" Depends)"
for f in usr/bin/tessera usr/bin/tessera-cli usr/share/applications/tessera.desktop \
         usr/share/icons/hicolor/scalable/apps/tessera.svg usr/share/mime/packages/tessera.xml \
         usr/share/man/man1/tessera.1.gz usr/share/man/man1/tessera-cli.1.gz \
         usr/share/tessera/samples/squeezenet.ios.json; do
  [[ -s "$root/$f" ]] || fail "missing $f"
done
grep -q '^MimeType=application/x-tessera-project;application/x-onnx;$' "$root/usr/share/applications/tessera.desktop" \
  || fail "desktop entry does not claim the MIME types"
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate "$root/usr/share/applications/tessera.desktop"
fi
grep -q 'glob pattern="\*.tessera"' "$root/usr/share/mime/packages/tessera.xml" || fail "no *.tessera glob"
grep -q 'glob pattern="\*.onnx"' "$root/usr/share/mime/packages/tessera.xml" || fail "no *.onnx glob"
zcat "$root/usr/share/man/man1/tessera-cli.1.gz" | grep -q 'export\\-ios' || fail "tessera-cli(1) lacks the commands"
zcat "$root/usr/share/man/man1/tessera.1.gz" | grep -q '\-\\-sample' || fail "tessera(1) lacks --sample"

# The unpacked programs run from there, on the bundled sample.
cli="$root/usr/bin/tessera-cli"
"$cli" --version | grep -q '^tessera-cli [0-9]' || fail "tessera-cli --version"
sample="$root/usr/share/tessera/samples/squeezenet.ios.json"
"$cli" schedule "$sample" --algo ios --device nvidia-v100 --out "$root/plan.json" | grep -q 'est. latency' \
  || fail "schedule of the bundled sample"
[[ -s "$root/plan.json" ]] || fail "no schedule document written"
"$cli" run "$sample" --algo sequential --backend reference >"$root/run.txt" || fail "run on the reference backend"
# The importer's helper process is in the package and checks an ONNX model
# (TESSERA_ONNX_CHECK: the unpacked copy only, not the build tree's).
helper="$root/usr/lib/tessera/tessera-onnx-check"
[[ -x "$helper" ]] || fail "the importer's helper is not in the package"
"$cli" sample squeezenet --out "$root/squeezenet.onnx" >/dev/null || fail "tessera-cli sample"
TESSERA_ONNX_CHECK="$helper" "$cli" inspect "$root/squeezenet.onnx" | grep -q 'Conv' \
  || fail "import through the packaged helper"
# The CPU backend's LLVM module is in the package where the backend looks
# (../lib/tessera from the program) and compiles the element-wise kernels;
# TESSERA_CPU_JIT points at the unpacked copy only, not at the build tree's.
jit="$root/usr/lib/tessera/libtessera_cpu_jit.so"
[[ -f "$jit" ]] || fail "the CPU backend's LLVM module is not in the package"
TESSERA_CPU_JIT="$jit" "$cli" run "$sample" --algo sequential --option epilogues=false --backend cpu --json \
  >"$root/cpu.json" || fail "run on the cpu backend"
grep -q '"llvm-jit"' "$root/cpu.json" || fail "the packaged LLVM module compiled no element-wise kernel"
env -u DISPLAY -u WAYLAND_DISPLAY QT_QPA_PLATFORM=xcb "$root/usr/bin/tessera" --version | grep -q '^Tessera ' \
  || fail "tessera --version without a display"
# The negative twin: a model that does not exist is a clear error, exit 3.
set +e
"$cli" schedule "$root/no-such-model.onnx" --algo ios 2>"$root/err.txt"
code=$?
set -e
[[ $code -ne 0 ]] && grep -q 'no-such-model.onnx' "$root/err.txt" || fail "a missing model was not refused clearly (exit $code)"
echo "tst_deb: $(basename "$deb") ($(du -h "$deb" | cut -f1)) unpacks and runs the bundled sample"
