"""The widgets the screens are made of: the client panes, the key inspector, the lanes, the
narration, the programs panel."""
