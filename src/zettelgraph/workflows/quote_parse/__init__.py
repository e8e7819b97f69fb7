"""Quote Parse Graph: book notes -> Content, Person and Quote nodes with embeddings."""
