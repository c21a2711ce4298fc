#include "core/plan/plan.h"
#include "core/support/status.h"
