"""redis-playground: two real Redis clients side by side on a private server."""

__version__ = "0.1.0"
