"""Building request URLs from the settings."""


def build_url(settings, path):
    """The URL of `path` on the configured server."""
    scheme = "https" if settings.use_tls else "http"
    return f"{scheme}://{settings.host}:{settings.port}/{path.lstrip('/')}"
