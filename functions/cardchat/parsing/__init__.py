"""What a client may send: every callable's request, email addresses, collection queries, a
valid card, and well-formed Unicode for what is stored or logged."""
