// How tessera-cli turns a project's model reference into a file
// (core/store/replay.h, ModelResolver): a sample is built with the default
// SampleOptions into a scratch folder of this process, an embedded model is
// written out there. The folder is removed when the ScratchModels goes.
#pragma once

#include "core/store/replay.h"

#include <string>

namespace tessera {
class Extensions;
}

namespace tessera::cli {

class ScratchModels
{
public:
    explicit ScratchModels(const Extensions &extensions);
    ~ScratchModels();
    ScratchModels(const ScratchModels &) = delete;
    ScratchModels &operator=(const ScratchModels &) = delete;

    ModelResolver resolver() const;
    // Builds sample `name` (matched without regard to case) into the folder.
    Expected<ModelResolver::BuiltSample> buildSample(const std::string &name) const;
    // The registered spelling of a sample name, or empty.
    std::string registeredName(const std::string &name) const;

private:
    const Extensions &m_extensions;
    std::string m_dir;
};

} // namespace tessera::cli
