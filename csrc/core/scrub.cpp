#include "scrub.hpp"
