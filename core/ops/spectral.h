// Spectral ops of ONNX opset 17 — DFT, STFT, MelWeightMatrix — whose
// geometry and values core/ops (spectral.cpp: shapes, FLOPs, index maps) and
// the reference backend's kernel (backends/reference/kernels/spectral.cpp)
// share, so the two cannot disagree.
//
// DFT: input [..., n, ..., 1|2] (real or complex, last dim), transform along
//   `axis` (attribute, default 1; opset 20: input 2, default -2; [-r, -2] or
//   [0, r-2] for rank r) of length
//   L = dft_length (a constant scalar input) or n; the input is zero-padded or
//   truncated to L. X[k] = Σ_{j<L} x[j] e^{∓2πi jk/L}, inverse scaled by 1/L.
//   onesided keeps bins [0, L/2]; it needs a real input and no inverse
//   (ONNX: the conjugate-symmetric half), else the node is refused.
// STFT: signal [B, T, 1|2], frame_step (constant scalar), window [W]
//   (optional, read at run time), frame_length (optional constant scalar; W
//   when absent, and W must equal it when both are given); output
//   [B, frames, bins, 2], frames = (T - L) / step + 1, bins = L/2 + 1 when
//   onesided (default 1, real signals only) else L.
//   Y[b, f, k] = Σ_{j<L} w[j] x[b, f·step + j] e^{-2πi jk/L}.
// MelWeightMatrix: [dft_length/2 + 1, num_mel_bins] triangular filters from
//   the mel scale m = 2595 log10(1 + f/700) (ONNX's definition: num_mel_bins +
//   2 points spaced by (mel(hi) - mel(lo)) / (num_mel_bins + 2), mapped to
//   bins floor((dft_length + 1) f / sample_rate)). num_mel_bins and dft_length
//   must be constants (they fix the shape); sample_rate and the edges are read
//   at run time.
// The kernels evaluate the transforms directly (O(L) per output element, in
// double, angles reduced modulo L), not by an FFT: exact index maps per
// output element matter more here than speed at the sizes models use.
#pragma once

#include "core/ir/graph.h"
#include "core/support/status.h"

#include <cstdint>
#include <vector>

namespace tessera::ops {

struct DftSpec {
    std::int64_t axis = 1;   // non-negative
    std::int64_t length = 0; // L
    std::int64_t bins = 0;   // output extent along axis
    bool inverse = false, onesided = false, complexInput = false;
};
Expected<DftSpec> dftSpec(const Graph &g, const Node &n);

struct StftSpec {
    std::int64_t step = 1, length = 0, frames = 0, bins = 0;
    bool onesided = true, complexInput = false, window = false;
};
Expected<StftSpec> stftSpec(const Graph &g, const Node &n);

// The filter bank, row-major [dftLength/2 + 1, numMelBins].
std::vector<double> melWeights(std::int64_t numMelBins, std::int64_t dftLength, double sampleRate, double lowerHz,
                               double upperHz);

} // namespace tessera::ops
