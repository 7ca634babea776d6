"""toolfx leaves: the built-in tools (read, write, edit, glob, grep, bash); arriving next."""
