"""Conversation topics per conversation type; values are assigned in table order, so only append."""

CONVERSATION_TYPES: tuple[str, ...] = (
    "ACTORS", "ATHLETES", "BOOK_GENRES", "BOOKS", "BRAND_CATEGORIES", "BRANDS", "CELEBRITIES", "COACHES",
    "DIGITAL_CREATORS", "ENTERTAINMENT_BRANDS", "ENTERTAINMENT_PERSONALITIES", "FICTIONAL_CHARACTERS",
    "JOURNALISTS", "LIFESTYLES", "MOVIE_GENRES", "MOVIES", "MUSIC_GENRES", "MUSICIANS", "NEWS_STORIES",
    "NEWS",
    "PERSONS", "PLACES", "PODCASTS", "POLITICAL_AFFILIATIONS", "POLITICIANS", "PRODUCTS", "RADIO_STATIONS",
    "SPORTS_LEAGUES", "SPORTS_PERSONALITIES", "SPORTS_TEAMS", "SPORTS", "TRENDS", "TV_SHOWS",
    "VIDEO_GAME_PLATFORMS", "VIDEO_GAME_PUBLISHERS", "VIDEO_GAMES",
)  # fmt: skip

# fmt: off
CONVERSATIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ACTORS", (
        "Meryl Streep", "Denzel Washington", "Zendaya", "Timothée Chalamet", "Viola Davis", "Tom Hanks")),
    ("ATHLETES", ("Serena Williams", "LeBron James", "Lionel Messi", "Simone Biles", "Shohei Ohtani")),
    ("BOOK_GENRES", ("Science fiction", "Mystery", "Romance novels", "Fantasy", "Historical fiction")),
    ("BOOKS", ("Harry Potter", "The Lord of the Rings", "Dune", "The Great Gatsby", "Pride and Prejudice")),
    ("BRAND_CATEGORIES", (
        "Fast food", "Sportswear", "Soft drinks", "Automakers", "Airlines", "Streaming services")),
    ("BRANDS", ("Nike", "Adidas", "Coca-Cola", "Starbucks", "McDonald's", "Apple", "Samsung", "Toyota")),
    ("CELEBRITIES", ("Kim Kardashian", "Oprah Winfrey", "Rihanna", "Dwayne Johnson", "Selena Gomez")),
    ("COACHES", ("Bill Belichick", "Pep Guardiola", "Steve Kerr", "Dawn Staley", "Carlo Ancelotti")),
    ("DIGITAL_CREATORS", ("MrBeast", "Marques Brownlee", "Emma Chamberlain", "PewDiePie", "Mark Rober")),
    ("ENTERTAINMENT_BRANDS", ("Netflix", "Disney+", "HBO", "Marvel Studios", "Pixar", "Nintendo")),
    ("ENTERTAINMENT_PERSONALITIES", ("Jimmy Fallon", "Ellen DeGeneres", "Trevor Noah", "Ryan Seacrest")),
    ("FICTIONAL_CHARACTERS", ("Batman", "Spider-Man", "Sherlock Holmes", "Mickey Mouse", "Pikachu")),
    ("JOURNALISTS", ("Anderson Cooper", "Christiane Amanpour", "Kara Swisher", "Lester Holt")),
    ("LIFESTYLES", (
        "Fitness enthusiasts", "Foodies", "Gamers", "Travelers", "Sneakerheads", "Outdoor enthusiasts")),
    ("MOVIE_GENRES", ("Action movies", "Comedy movies", "Horror movies", "Documentaries", "Animated movies")),
    ("MOVIES", ("Oppenheimer", "Barbie", "Dune: Part Two", "Inside Out 2", "Avatar: Fire and Ash")),
    ("MUSIC_GENRES", ("Hip hop", "Pop", "Country", "K-pop", "Latin music", "Electronic music", "Rock")),
    ("MUSICIANS", ("Taylor Swift", "Beyoncé", "Bad Bunny", "Drake", "BTS", "Ed Sheeran", "Billie Eilish")),
    ("NEWS_STORIES", ("Climate change", "Artificial intelligence", "Space exploration", "Elections")),
    ("NEWS", ("Breaking news", "World news", "Business news", "Technology news", "Sports news")),
    ("PERSONS", ("Elon Musk", "Bill Gates", "Malala Yousafzai", "Jeff Bezos", "Greta Thunberg")),
    ("PLACES", ("New York City", "London", "Paris", "Tokyo", "Los Angeles", "Dubai", "Mexico City")),
    ("PODCASTS", ("The Joe Rogan Experience", "Call Her Daddy", "The Daily", "Crime Junkie", "SmartLess")),
    ("POLITICAL_AFFILIATIONS", (
        "Democratic Party", "Republican Party", "Labour Party", "Conservative Party")),
    ("POLITICIANS", ("Barack Obama", "Emmanuel Macron", "Justin Trudeau", "Narendra Modi")),
    ("PRODUCTS", ("iPhone", "PlayStation 5", "Tesla Model 3", "AirPods", "Galaxy S25", "Nintendo Switch 2")),
    ("RADIO_STATIONS", ("BBC Radio 1", "NPR", "SiriusXM", "iHeartRadio", "KEXP")),
    ("SPORTS_LEAGUES", ("NFL", "NBA", "MLB", "NHL", "MLS", "Premier League", "La Liga", "Formula 1", "WNBA")),
    ("SPORTS_PERSONALITIES", ("Stephen A. Smith", "Pat McAfee", "Gary Lineker", "Shannon Sharpe")),
    ("SPORTS_TEAMS", ("Los Angeles Lakers", "Dallas Cowboys", "Real Madrid", "Manchester United",
                      "New York Yankees", "FC Barcelona", "Golden State Warriors")),
    ("SPORTS", ("Basketball", "Soccer", "American football", "Baseball", "Tennis", "Cricket", "Golf")),
    ("TRENDS", ("Memes", "Viral videos", "Fashion trends", "Food trends")),
    ("TV_SHOWS", ("The Last of Us", "Stranger Things", "The Bear", "Succession", "Saturday Night Live",
                  "Grey's Anatomy")),
    ("VIDEO_GAME_PLATFORMS", ("PlayStation", "Xbox", "Nintendo Switch", "Steam", "Mobile gaming")),
    ("VIDEO_GAME_PUBLISHERS", ("Electronic Arts", "Activision Blizzard", "Ubisoft", "Nintendo",
                               "Epic Games", "Riot Games")),
    ("VIDEO_GAMES", ("Fortnite", "Minecraft", "Call of Duty", "League of Legends", "The Legend of Zelda",
                     "Grand Theft Auto VI", "EA Sports FC")),
)
# fmt: on
