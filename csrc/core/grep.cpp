#include "grep.hpp"
