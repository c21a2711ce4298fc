// Extensions (see extensions.h).
#include "core/plugin/extensions.h"

#include "core/support/assert.h"
#include "core/support/names.h"

#include <algorithm>
#include <cctype>
#include <onnx/onnx_pb.h> // buildSample()'s ModelProto

namespace tessera {

namespace {

bool endsWithNoCase(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && std::equal(suffix.rbegin(), suffix.rend(), s.rbegin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           });
}

template <typename T> bool hasName(const std::vector<T> &items, std::string_view name)
{
    return std::any_of(items.begin(), items.end(), [&](const T &t) { return t.name == name; });
}

} // namespace

bool ScheduleFormat::accepts(std::string_view algorithm) const
{
    return algorithms.empty() || std::find(algorithms.begin(), algorithms.end(), algorithm) != algorithms.end();
}

Status ScheduleFormat::checkAlgorithm(std::string_view algorithm) const
{
    if (accepts(algorithm))
        return Status::ok();
    std::string list;
    for (std::size_t i = 0; i < algorithms.size(); ++i)
        list += (i == 0 ? "" : i + 1 == algorithms.size() ? " or " : ", ") + algorithms[i];
    return Status::error(ErrorCode::Usage, "the last schedule was made by '" + std::string(algorithm) + "', not " +
                                               list + ": schedule with " + list + " to export a '" + name +
                                               "' schedule");
}

void Extensions::addModelFormat(ModelFormat format)
{
    TS_ASSERT_MSG(!format.name.empty() && format.import, "a model format needs a name and an import function");
    TS_ASSERT_MSG(!hasName(m_modelFormats, format.name), "duplicate model format");
    m_modelFormats.push_back(std::move(format));
}

void Extensions::addScheduleFormat(ScheduleFormat format)
{
    TS_ASSERT_MSG(!format.name.empty() && format.write, "a schedule format needs a name and a write function");
    TS_ASSERT_MSG(!hasName(m_scheduleFormats, format.name), "duplicate schedule format");
    m_scheduleFormats.push_back(std::move(format));
}

void Extensions::addCommand(cli::Command command)
{
    TS_ASSERT_MSG(!command.name.empty() && command.run, "a command needs a name and a run function");
    TS_ASSERT_MSG(!hasName(m_commands, command.name), "duplicate command");
    m_commands.push_back(std::move(command));
}

void Extensions::addSample(SampleNetwork sample)
{
    TS_ASSERT_MSG(!sample.info.name.empty() && sample.build, "a sample needs a name and a build function");
    TS_ASSERT_MSG(!findSample(sample.info.name), "duplicate sample");
    m_samples.push_back(std::move(sample));
}

const SampleNetwork *Extensions::findSample(std::string_view name) const
{
    for (const SampleNetwork &s : m_samples)
        if (sameName(s.info.name, name))
            return &s;
    return nullptr;
}

Expected<std::unique_ptr<onnx::ModelProto>> Extensions::buildSample(std::string_view name,
                                                                    const SampleOptions &options) const
{
    if (const SampleNetwork *s = findSample(name))
        return s->build(options);
    std::string known;
    for (const SampleNetwork &s : m_samples)
        known += (known.empty() ? "" : ", ") + s.info.name;
    return Status::error(ErrorCode::Usage, "unknown sample '" + std::string(name) +
                                               "'; known: " + (known.empty() ? std::string("none") : known));
}

const ModelFormat *Extensions::modelFormatFor(std::string_view path) const
{
    for (const ModelFormat &f : m_modelFormats)
        for (const std::string &suffix : f.suffixes)
            if (path.size() > suffix.size() && endsWithNoCase(path, suffix))
                return &f;
    return nullptr;
}

const ScheduleFormat *Extensions::findScheduleFormat(std::string_view name) const
{
    for (const ScheduleFormat &f : m_scheduleFormats)
        if (f.name == name)
            return &f;
    return nullptr;
}

Expected<const ScheduleFormat *> Extensions::scheduleFormat(std::string_view name) const
{
    if (const ScheduleFormat *f = findScheduleFormat(name))
        return f;
    std::string known;
    for (const ScheduleFormat &f : m_scheduleFormats)
        known += (known.empty() ? "" : ", ") + f.name;
    return Status::error(ErrorCode::Usage, "unknown schedule format '" + std::string(name) +
                                               "'; known: " + (known.empty() ? std::string("none") : known));
}

Expected<ImportResult> Extensions::importModel(const std::string &path, const ImportOptions &options) const
{
    if (const ModelFormat *f = modelFormatFor(path))
        return f->import(path, options);
    return tessera::importModel(path, options);
}

} // namespace tessera
