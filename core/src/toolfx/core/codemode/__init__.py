"""Code Mode: the `run_code` transport, its stubs and its bridge to the pipeline."""

__all__: list[str] = []
