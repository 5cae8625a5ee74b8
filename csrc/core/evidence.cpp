#include "evidence.hpp"
