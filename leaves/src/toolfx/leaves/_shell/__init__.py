"""Shell command review for the bash leaf: parsing, words, programs and the rules over them."""
