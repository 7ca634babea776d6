"""toolfx.testing: a kit for people who write interpreters, runtimes, tools and policies."""
