"""toolfx interpreters: runners for pipeline descriptions (arriving with the pipeline issue)."""
