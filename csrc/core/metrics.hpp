// gaia_eval native core: metrics (no Python headers).
#pragma once

namespace gaia::metrics {}  // namespace gaia::metrics
