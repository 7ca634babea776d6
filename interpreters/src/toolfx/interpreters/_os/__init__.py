"""Real-OS capabilities shared by the sync and anyio interpreters: files beneath a root, processes,
sandboxes, spill folders.
"""
