"""The interest taxonomy: categories in value order, each with its subcategories in value order.

A subcategory's value is the category number followed by its three-digit position,
so "Books and literature/Biographies and memoirs" is 1001.
"""

# fmt: off
INTEREST_TAXONOMY: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Books and literature", (
        "Biographies and memoirs", "Business and finance books", "Children's books", "Comics",
        "Cookbooks", "eBooks", "Fiction", "History books", "Mystery and crime", "Poetry",
        "Science fiction and fantasy", "Self-help books",
    )),
    ("Business", (
        "Advertising", "Agriculture", "Biotech and biomedical", "Business news and general info",
        "Business software", "Construction", "Entrepreneurship", "Government", "Green solutions",
        "Human resources", "Leadership", "Marketing", "Nonprofit", "Small business", "Startups",
    )),
    ("Careers", (
        "Career news and general info", "Job search and listings", "Military", "Remote work",
        "Retirement", "Technical training", "Unions",
    )),
    ("Education", (
        "College life", "Education news and general info", "Graduate school", "Homeschooling",
        "Language learning", "Online education", "Special education", "Teachers",
    )),
    ("Events", (
        "Concerts", "Conferences", "Festivals", "Holidays", "Sporting events", "Trade shows",
    )),
    ("Family and parenting", (
        "Adoption", "Babies and toddlers", "Daycare and preschool", "Eldercare",
        "Family news and general info", "Parenting K-6 kids", "Parenting teens", "Pregnancy",
        "Weddings",
    )),
    ("Food and drink", (
        "Barbecues and grilling", "Beer", "Cocktails", "Coffee and tea", "Cooking", "Desserts and baking",
        "Fast food", "Food news and general info", "Healthy eating", "Restaurants", "Spirits",
        "Vegan", "Vegetarian", "Wine",
    )),
    ("Health", (
        "Alternative medicine", "Beauty", "Dental care", "Diabetes", "Diet and nutrition",
        "Exercise and fitness",
        "Health news and general info", "Men's health", "Mental health", "Sleep", "Weight loss",
        "Women's health", "Yoga",
    )),
    ("Hobbies and interests", (
        "Animation", "Antiques", "Arts and crafts", "Astrology", "Birdwatching", "Collecting",
        "Comic books", "Dance", "Drawing and sketching", "Genealogy", "Modeling", "Needlework",
        "Paranormal phenomena", "Photography", "Sci-fi and fantasy", "Sewing", "Woodworking",
    )),
    ("Home and garden", (
        "Appliances", "Do it yourself (DIY)", "Gardening", "Home decor", "Home improvement",
        "Home news and general info", "Interior design", "Landscaping", "Real estate", "Remodeling",
    )),
    ("Law, government, and politics", (
        "Charity causes", "Immigration", "Law", "Legal issues", "Political elections",
        "Political news", "Politics", "Social causes", "US government", "World politics",
    )),
    ("Life stages", (
        "Adolescents", "College students", "Empty nesters", "Grandparents", "Parents",
        "Retirees", "Young adults",
    )),
    ("Movies and television", (
        "Action and adventure films", "Animated films", "Classic films", "Comedy (movies and television)",
        "Documentary", "Drama", "Foreign films", "Horror movies", "Independent films",
        "Movie news and general info", "Reality TV", "Romance films", "Sci-fi and fantasy films",
        "Sports TV", "Talk shows", "Television", "Streaming services",
    )),
    ("Music and radio", (
        "Alternative", "Blues", "Classical music", "Country music", "Electronic/dance music",
        "Hip hop and rap", "Indie", "Jazz", "K-pop", "Latin music", "Metal", "Music festivals and concerts",
        "Music news and general info", "Podcasts", "Pop", "R&B and soul", "Radio", "Reggae", "Rock",
    )),
    ("Personal finance", (
        "Banking", "Credit cards", "Cryptocurrencies", "Financial news", "Financial planning",
        "Insurance", "Investing", "Mortgages", "Retirement planning", "Stocks", "Tax preparation",
    )),
    ("Pets", (
        "Aquariums", "Birds", "Cats", "Dogs", "Horses", "Pet adoption", "Reptiles",
    )),
    ("Science", (
        "Biology", "Chemistry", "Climate", "Earth sciences", "Genetics", "Physics",
        "Science news", "Space and astronomy", "Weather",
    )),
    ("Society", (
        "Dating", "Divorce", "Ethnic and cultural groups", "LGBTQ+", "Philanthropy", "Religion",
        "Senior living", "Sustainability", "Volunteering",
    )),
    ("Sports", (
        "American football", "Auto racing", "Baseball", "Basketball", "Boxing", "Cricket", "Cycling",
        "Esports", "Fantasy sports", "Golf", "Hockey", "Martial arts", "Olympics", "Rugby",
        "Running", "Skiing", "Soccer", "Sports news", "Surfing", "Swimming", "Tennis", "Wrestling",
    )),
    ("Style and fashion", (
        "Accessories", "Clothing", "Cosmetics", "Fashion", "Fragrances", "Hair care", "Jewelry",
        "Men's fashion", "Shoes", "Skin care", "Women's fashion",
    )),
    ("Technology and computing", (
        "Artificial intelligence", "Cameras and photography", "Cell phones", "Cloud computing",
        "Computer certification", "Computer networking", "Computer programming", "Cybersecurity",
        "Data centers", "Databases", "Desktops", "Laptops", "Linux", "Mac", "Mobile apps",
        "Open source", "Tablets", "Tech news", "Web design", "Windows",
    )),
    ("Travel", (
        "Adventure travel", "Air travel", "Beach vacations", "Budget travel", "Business travel",
        "Camping", "Cruises", "Family travel", "Hotels", "Luxury travel", "National parks",
        "Road trips", "Travel news and general info",
    )),
    ("Automotive", (
        "Auto news and general info", "Car culture", "Classic cars", "Electric vehicles", "Luxury cars",
        "Motorcycles", "Pickup trucks", "SUVs", "Sports cars",
    )),
    ("Gaming", (
        "Console gaming", "Mobile gaming", "Online gaming", "PC gaming", "Tabletop gaming",
        "Game news and general info",
    )),
    ("Shopping", (
        "Coupons and discounts", "Luxury goods", "Online shopping", "Retail", "Toys",
    )),
)
# fmt: on
