#include "plugins/graphturbo/binding.h"

namespace tessera::graphturbo {

std::vector<int> plainBinding(const ops::Region &tile, int cores)
{
    std::vector<int> b(tile.size(), 1);
    int left = cores;
    for (std::size_t d = 0; d < tile.size() && left > 1; ++d)
        for (int f : {8, 4, 2}) {
            if (f <= left && left % f == 0 && tile[d].size() % f == 0) {
                b[d] = f;
                left /= f;
                break;
            }
        }
    return b;
}

int boundCores(const std::vector<int> &binding)
{
    int n = 1;
    for (int f : binding)
        n *= f;
    return n;
}

std::string bindingStr(const std::vector<int> &binding)
{
    std::string s = "[";
    for (std::size_t i = 0; i < binding.size(); ++i)
        s += (i ? "," : "") + std::to_string(binding[i]);
    return s + "]";
}

} // namespace tessera::graphturbo
