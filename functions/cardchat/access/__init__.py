"""Who may do what: permissions, the user's own API keys, personal access tokens, rate limits,
card viewers, and leaving (deleting an account)."""
