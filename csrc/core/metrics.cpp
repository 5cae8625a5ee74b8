#include "metrics.hpp"
