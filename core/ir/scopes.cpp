#include "core/ir/scopes.h"

#include <algorithm>

namespace tessera {

namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}
bool isAlpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool isNumber(std::string_view s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), isDigit);
}

// One '.'-separated word, split at '_' between an indexed word and a letter.
void splitUnderscores(std::string_view word, std::vector<std::string_view> &out)
{
    std::size_t start = 0;
    bool hasLetter = false;
    for (std::size_t i = 0; i < word.size(); ++i) {
        if (word[i] == '_' && hasLetter && i > start && isDigit(word[i - 1]) && i + 1 < word.size() &&
            isAlpha(word[i + 1])) {
            out.push_back(word.substr(start, i - start));
            start = i + 1;
            hasLetter = false;
        }
        hasLetter = hasLetter || isAlpha(word[i]);
    }
    if (start < word.size())
        out.push_back(word.substr(start));
}

// Tokens of one '/' component: '.'-pieces, numeric pieces glued to the word before.
void splitComponent(std::string_view comp, std::vector<std::string_view> &out)
{
    std::size_t wordStart = std::string_view::npos, wordEnd = 0;
    for (std::size_t i = 0; i <= comp.size();) {
        const std::size_t dot = std::min(comp.find('.', i), comp.size());
        const std::string_view piece = comp.substr(i, dot - i);
        if (!piece.empty()) {
            if (wordStart == std::string_view::npos || !isNumber(piece)) {
                if (wordStart != std::string_view::npos)
                    splitUnderscores(comp.substr(wordStart, wordEnd - wordStart), out);
                wordStart = i;
            }
            wordEnd = dot;
        }
        i = dot + 1;
    }
    if (wordStart != std::string_view::npos)
        splitUnderscores(comp.substr(wordStart, wordEnd - wordStart), out);
}

} // namespace

std::vector<std::string_view> nameScopes(std::string_view name)
{
    std::vector<std::string_view> tokens, prev, cur;
    for (std::size_t i = 0; i <= name.size();) {
        const std::size_t slash = std::min(name.find('/', i), name.size());
        cur.clear();
        splitComponent(name.substr(i, slash - i), cur);
        if (!cur.empty()) {
            const bool repeats = cur.size() > prev.size() && std::equal(prev.begin(), prev.end(), cur.begin());
            tokens.insert(tokens.end(), cur.begin() + (repeats ? std::ptrdiff_t(prev.size()) : 0), cur.end());
            std::swap(prev, cur);
        }
        i = slash + 1;
    }
    if (!tokens.empty())
        tokens.pop_back(); // the node's own name
    if (tokens.size() > kMaxScopeDepth)
        tokens.resize(kMaxScopeDepth);
    return tokens;
}

} // namespace tessera
