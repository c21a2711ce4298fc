// S2: bytes → onnx::ModelProto. The input is untrusted: size limits come first,
// the CodedInputStream's total-bytes limit is the buffer itself (protobuf can
// address at most 2 GiB; bigger models must keep weights as external data),
// and a parse failure names the file and the byte offset where it stopped.
// Protobuf checks every length prefix against the bytes that remain, so a
// truncated or lying file cannot make it allocate more than its own size.
//
// Memory (issue 11, "peak memory under 1.5x the file size"): protobuf copies
// every raw_data payload into a std::string of the proto, so while it parses a
// mapped file the weights exist twice, once in the mapping's pages and once in
// the proto. The bytes are therefore handed to protobuf in chunks of
// kParseChunkBytes, and whenever protobuf asks for the next chunk, everything
// before it is reported as consumed (protobuf's stream contract: a buffer
// returned by Next() is not read again after the following Next()), so the
// caller can drop those pages: the file's copy shrinks as the proto's grows.
#include "core/onnx/internal.h"

#include <algorithm>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream.h>
#include <limits>

namespace tessera::onnximport {

namespace {

// A ZeroCopyInputStream over `bytes` that hands out kParseChunkBytes at a time
// and reports the prefix protobuf has moved past to `consumed`.
class ChunkedInput final : public google::protobuf::io::ZeroCopyInputStream
{
public:
    ChunkedInput(std::string_view bytes, const ConsumedBytes &consumed) : m_bytes(bytes), m_consumed(consumed) {}

    bool Next(const void **data, int *size) override
    {
        if (m_consumed && m_pos > m_reported) {
            m_reported = m_pos;
            m_consumed(m_pos);
        }
        if (m_pos >= m_bytes.size())
            return false;
        const std::size_t n = std::min(kParseChunkBytes, m_bytes.size() - m_pos);
        *data = m_bytes.data() + m_pos;
        *size = static_cast<int>(n);
        m_pos += n;
        return true;
    }
    void BackUp(int count) override { m_pos -= static_cast<std::size_t>(count); }
    bool Skip(int count) override
    {
        const std::size_t left = m_bytes.size() - m_pos;
        m_pos += std::min(left, static_cast<std::size_t>(count));
        return static_cast<std::size_t>(count) <= left;
    }
    std::int64_t ByteCount() const override { return static_cast<std::int64_t>(m_pos); }

private:
    std::string_view m_bytes;
    const ConsumedBytes &m_consumed;
    std::size_t m_pos = 0;      // next byte to hand out
    std::size_t m_reported = 0; // prefix reported as consumed
};

} // namespace

Status parseModel(std::string_view bytes, const ImportContext &ctx, ::onnx::ModelProto &model,
                  const ConsumedBytes &consumed)
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

    ChunkedInput chunks(bytes, consumed);
    google::protobuf::io::CodedInputStream in(&chunks);
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
