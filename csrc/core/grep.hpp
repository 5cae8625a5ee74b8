// gaia_eval native core: grep (no Python headers).
#pragma once

namespace gaia::grep {}  // namespace gaia::grep
