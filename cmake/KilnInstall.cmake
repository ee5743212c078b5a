# install rules (filled in with the embedding work)
