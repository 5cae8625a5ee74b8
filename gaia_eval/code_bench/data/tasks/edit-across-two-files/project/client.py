"""Building request URLs from the settings."""


def build_url(settings, path):
    """The URL of `path` on the configured server."""
    return f"http://{settings.host}:{settings.port}/{path.lstrip('/')}"
