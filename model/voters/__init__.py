"""The KRaft voter set (KIP-853): the voter-set history, the control records and
reconfiguration folded into the KRaft system model."""
