#include "plugins/pcgc/pcgc.h"
