"""Hand labels of the NAME strings the detector proposes (verifier off) on the chat blocks of
``chat_set.py``.

Read by eye: by the chat audit of 0225 for the spans the verifier kept, and for 0233 for the 150
strings it dropped (of which only the son's name ``Sie-tahn`` names a private person).
PRIVATE: a private person named in the overheard text (gold, unannotated there); PUBLIC: a public
figure, a fictional character or a deity (not PII); every other proposed string is no person.
"""

PRIVATE = {
    "Ada", "Alexis", "Alyenne", "Anthony", "Bernie", "Beth", "Bobby", "Brian", "Charlie", "Clarence",
    "Dan", "Eddie", "Frank", "Gary", "Ian", "Jack", "Jason", "Jessica", "Joe", "John", "Keegan", "Les",
    "Leslie", "Lester", "Norman", "Paco", "Pedro", "Pete", "Peter", "Randy", "Richard", "Robbie",
    "Roberts", "Rosie", "Sadie", "Sarah", "Sergei", "Sheila", "Sie-tahn", "Sofiya", "Stanley", "Steve",
    "Susan", "Tanya", "Terry", "Trish", "Zacky"
}

PUBLIC = {
    "Akiva Goldsmith", "Amy Fisher", "Ann Coulter", "Anna Nicole", "Anne Frank", "Anthony Weiner",
    "Antigone", "Ashlee", "Babe", "Bambi", "Barbra", "Benjamin Franklin", "Beyonc", "Billy Strayhorn",
    "Blanche Devereaux", "Cam'ron", "Castro", "Cato", "Chuck Norris", "Craig Kilborn", "Dave Matthews",
    "Dave Matthews Band", "David Smith", "Derek Jeter", "Dorian Gray", "Dorothy Hamill",
    "Eddie Kaye Thomas", "Elliott", "Elvis", "Emana", "Ensala", "Epala", "Epasa", "Epatha",
    "Epatha Merkerson", "Gandhi", "Gerard", "JESUS", "JRR Tolkien", "Jacques Cousteau",
    "Janet Jackson", "Jessica Alba", "Jesus", "Jetsons", "Jimmy Carter", "Johnny", "Johnny Carson",
    "Johnny Depp", "Johnny Knoxville", "Joseph", "Keith Richards", "Kenneth Cole", "King Jafee-Jafee",
    "King Kong", "Kramer", "Lemony Snicket", "Lisa Frank", "Lucy", "Luke", "Mandy Moore", "Mary",
    "Natalie Portman", "Nicole Ritchie", "Oscar", "Peter North", "Peter Sarsgaard", "Rita Wilson",
    "Rosalyn", "Rue McClanahan", "Ruth", "Sarah Jessica Parker", "Smiths", "Solomon", "Tony Danza",
    "Trix", "Vanna", "Weiner", "Wilson"
}
