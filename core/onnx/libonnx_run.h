// libonnx's checker and shape inference as the isolated process runs them
// (onnx_checks.cpp, S6): in the helper executable tessera-onnx-check
// (app/onnxcheck/main.cpp), spawned fresh, or in a forked child where that
// helper is not found. What runLibonnx() writes is the protocol between the
// two sides: progress tags as it goes, then one result tag and its payload.
// Only libonnx and protobuf: the helper links nothing else of Tessera.
#pragma once

#include <cstddef>
#include <onnx/onnx_pb.h>
#include <string>

namespace tessera::onnximport {

// What runLibonnx() reports, as the first byte of its output. Progress bytes
// name the stage that was running if the child dies.
enum Tag : char {
    CheckerStarted = 'c',
    InferenceStarted = 'i',
    CheckerFailed = 'C',
    InferenceFailed = 'I',
    Done = 'K'
};

// Writes all of `data` to `fd`, retrying on EINTR; stops at an error.
void writeAll(int fd, const char *data, std::size_t size);

// Checker then inference; returns Done + a GraphProto holding the inferred
// value_info and outputs, or a failure tag + libonnx's message. Progress tags
// go to `progressFd` first when it is valid.
std::string runLibonnx(::onnx::ModelProto &model, int progressFd);

} // namespace tessera::onnximport
