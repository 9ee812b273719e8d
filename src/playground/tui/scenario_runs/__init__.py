"""An open lesson or challenge on its screen (a ScenarioRun: what a Space does), and what the narration panel says."""
