// AncestorBits: the transitive dependencies of a DAG of tasks as dense
// bitsets, one row of ⌈n/64⌉ words per task (bit d of row t: t depends on d,
// directly or not). The plan verifier (verify.cpp: is every region a task
// reads produced by an ancestor?) and the CPU backend's arena placement
// (backends/cpu: may two tensors share bytes?) both ask it.
//
// Assumes every dependency of task t is an earlier task (< t), as
// ExecutionPlan's are. n² bits: callers cap n (16384 tasks: 32 MB).
// Built in one pass, latest dependency first: a dependency already marked is
// an ancestor of one merged before, whose row holds its row; a row's words
// above its latest dependency stay zero. Tasks with the same dependency list
// (the bricks of one layer each waiting for every brick of the layer before)
// share one computation.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace tessera {

class AncestorBits
{
public:
    // depsOf(t): the direct dependencies of task t (in any order, each < t).
    AncestorBits(std::size_t n, const std::function<std::span<const std::int32_t>(std::size_t)> &depsOf);

    // Whether `t` depends on `ancestor` (transitively); a task is not its own ancestor.
    bool isAncestor(std::size_t ancestor, std::size_t t) const
    {
        return (m_bits[t * m_words + ancestor / 64] >> (ancestor % 64)) & 1ULL;
    }
    // Task t's row: words() words, bit d set when d is an ancestor of t.
    const std::uint64_t *row(std::size_t t) const { return &m_bits[t * m_words]; }
    std::size_t words() const { return m_words; }
    std::size_t size() const { return m_n; }

private:
    std::size_t m_n = 0, m_words = 0;
    std::vector<std::uint64_t> m_bits;
};

} // namespace tessera
