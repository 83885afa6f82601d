"""The browser GUI of `palais serve`: a local web app over the game model of play/ and PRI engines."""
