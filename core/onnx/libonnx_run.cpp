#include "core/onnx/libonnx_run.h"

#include <cerrno>
#include <exception>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>
#include <unistd.h>

namespace tessera::onnximport {

void writeAll(int fd, const char *data, std::size_t size)
{
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
}

std::string runLibonnx(::onnx::ModelProto &model, int progressFd)
{
    auto progress = [progressFd](Tag t) {
        if (progressFd >= 0)
            writeAll(progressFd, reinterpret_cast<const char *>(&t), 1);
    };
    auto failure = [](Tag t, const char *what) { return std::string(1, t) + (what ? what : "unknown error"); };
    progress(CheckerStarted);
    try {
        ::onnx::checker::check_model(model);
    } catch (const std::exception &e) {
        return failure(CheckerFailed, e.what());
    } catch (...) {
        return failure(CheckerFailed, nullptr);
    }
    progress(InferenceStarted);
    try {
        const ::onnx::ShapeInferenceOptions options(/*check_type=*/false, /*strict_mode=*/0, /*data_prop=*/true);
        ::onnx::shape_inference::InferShapes(model, ::onnx::OpSchemaRegistry::Instance(), options);
    } catch (const std::exception &e) {
        return failure(InferenceFailed, e.what());
    } catch (...) {
        return failure(InferenceFailed, nullptr);
    }
    ::onnx::GraphProto inferred;
    inferred.mutable_value_info()->Swap(model.mutable_graph()->mutable_value_info());
    inferred.mutable_output()->Swap(model.mutable_graph()->mutable_output());
    return std::string(1, Done) + inferred.SerializeAsString();
}

} // namespace tessera::onnximport
