#include "core/support/status.h"
