// The model metadata keys (ONNX metadata_props) that carry the IOS artifact's
// units and blocks: written by samples' IOS converter, read by
// iosUnitsFromMetadata() (iosformat.h). Header-only so model builders can use
// them without linking core/io.
#pragma once

namespace tessera {

inline constexpr char kIosUnitsKey[] = "ios.units";   // JSON: [{"name", "nodes": [...]}]
inline constexpr char kIosBlocksKey[] = "ios.blocks"; // JSON: [{"units": [...], "parts": [[...]]}]

} // namespace tessera
