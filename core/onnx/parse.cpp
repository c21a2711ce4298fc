// S2: bytes → onnx::ModelProto. The input is untrusted: size limits come first,
// the CodedInputStream's total-bytes limit is the buffer itself (protobuf can
// address at most 2 GiB; bigger models must keep weights as external data),
// and a parse failure names the file and the byte offset where it stopped.
// Protobuf checks every length prefix against the bytes that remain, so a
// truncated or lying file cannot make it allocate more than its own size.
#include "core/onnx/internal.h"

#include <google/protobuf/io/coded_stream.h>
#include <limits>

namespace tessera::onnximport {

Status parseModel(std::string_view bytes, const ImportContext &ctx, ::onnx::ModelProto &model)
{
    const Location loc = ctx.at();
    const auto size = static_cast<std::int64_t>(bytes.size());
    if (size == 0)
        return Status::invalid("file is empty, not an onnx model", loc);
    if (size > ctx.options.maxFileBytes)
        return Status::invalid("file is " + std::to_string(size) + " bytes, more than the import limit of " +
                                   std::to_string(ctx.options.maxFileBytes),
                               loc);
    if (size > std::numeric_limits<int>::max())
        return Status::invalid("model protobuf is larger than 2 GiB, which protobuf cannot parse; "
                               "store the weights as external data",
                               loc);

    google::protobuf::io::CodedInputStream in(reinterpret_cast<const std::uint8_t *>(bytes.data()),
                                              static_cast<int>(size));
    in.SetTotalBytesLimit(static_cast<int>(size));
    if (!model.ParseFromCodedStream(&in)) {
        Location at = loc;
        at.offset = in.CurrentPosition();
        return Status::invalid("not a valid onnx model: the protobuf is corrupt or truncated", at);
    }
    if (!model.has_graph())
        return Status::invalid("not a valid onnx model: it has no graph", loc);
    return Status::ok();
}

} // namespace tessera::onnximport
