"""The language models: the model table, token counting, and the API keys (the deployment's
secrets, and users' own keys sealed at rest)."""
