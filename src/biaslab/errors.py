"""The one exception type a user can cause; the CLI turns it into one line and exit code 2."""


class BiaslabError(Exception):
    """A problem with the user's input (file, parameter, name), reported without a traceback."""
