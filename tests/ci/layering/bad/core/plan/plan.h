#include "core/cost/costmodel.h"
