"""Adversarial tests: the leaves under a hostile model, repository and racing process."""
