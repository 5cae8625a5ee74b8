// gaia_eval native core: scrub (no Python headers).
#pragma once

namespace gaia::scrub {}  // namespace gaia::scrub
