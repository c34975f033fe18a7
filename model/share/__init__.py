"""KIP-932 share-group state coordinator (spec/share.md)."""
