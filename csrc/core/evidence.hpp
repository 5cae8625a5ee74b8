// gaia_eval native core: evidence (no Python headers).
#pragma once

namespace gaia::evidence {}  // namespace gaia::evidence
