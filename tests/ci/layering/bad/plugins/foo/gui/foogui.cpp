#include "backends/fast/fast.h"
