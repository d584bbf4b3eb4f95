"""Document shapes: one typed definition per Firestore document and collection name.

documents (cards, users, chats, messages and the names shared with the SPA), accounts (the
per-user documents beside the chats), chat_sources (per-turn retrieval), embedding_queue (the
batched embedding pipeline). Nothing here imports Firebase: repo/ turns these into dicts."""
